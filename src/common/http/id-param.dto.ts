import { IsUUID } from 'class-validator';

/**
 * `:id` of any route that names one row: anything but a uuid is a 400 naming `id` (in the error body's
 * details, like every other bad field), never a database error.
 */
export class IdParamDto {
  @IsUUID('all', { message: 'id must be a uuid' })
  id: string;
}
