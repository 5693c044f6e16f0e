import { MemberDto } from './members.dto';

export interface MemberRow extends Record<string, unknown> {
  id: string;
  member_id: string;
  role: string | null;
  u_display_name: string;
  u_email: string;
  u_avatar_url: string | null;
}

export const MEMBER_EXPANDS = ['member'] as const;

export function mapMember(row: MemberRow, expand: Set<string>): MemberDto {
  const dto: MemberDto = { id: row.id, member_id: row.member_id, role: row.role };
  if (expand.has('member')) {
    dto.member = {
      id: row.member_id,
      display_name: row.u_display_name,
      avatar_url: row.u_avatar_url,
      email: row.u_email,
    };
  }
  return dto;
}
