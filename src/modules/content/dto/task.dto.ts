import { ApiProperty } from '@nestjs/swagger';
import { IsISO8601, IsString, MaxLength, MinLength } from 'class-validator';
import { TaskStatus } from '../../../generated/prisma/enums';
import { TenantBodyDto } from '../../../common/http/tenant-body.dto';
import { OptionalNotNull } from '../../../common/decorators/optional.decorators';

export class CreateTaskDto extends TenantBodyDto {
  /** 1–200 characters */
  @IsString()
  @MinLength(1)
  @MaxLength(200)
  title: string;

  /** up to 5000 characters; default empty */
  @OptionalNotNull()
  @IsString()
  @MaxLength(5000)
  description?: string;

  /** ISO-8601 date-time */
  @OptionalNotNull()
  @IsString()
  @MaxLength(40)
  @IsISO8601({ strict: true }, { message: 'dueAt must be an ISO-8601 date-time' })
  dueAt?: string;
}

export class TaskDto {
  id: string;
  communityId: string;
  title: string;
  description: string;
  @ApiProperty({ enum: TaskStatus })
  status: TaskStatus;
  @ApiProperty({ nullable: true, type: Date })
  dueAt: Date | null;
  createdById: string;
  likeCount: number;
  commentCount: number;
  createdAt: Date;
  updatedAt: Date;
}
