import { IntersectionType } from '@nestjs/swagger';
import { TenantBodyDto } from '../../../common/http/tenant-body.dto';
import { MemberInputDto } from './member-input.dto';

export class AddMemberDto extends IntersectionType(TenantBodyDto, MemberInputDto) {}
