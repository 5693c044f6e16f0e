import { Injectable } from '@nestjs/common';
import * as argon2 from 'argon2';
import { DataSource } from 'typeorm';
import { ADMIN_ACTOR, AuditService } from '../audit/audit.service';
import { ProblemException } from '../common/errors/problem.exception';
import { UsersRepository } from './users.repository';

/** NIST SP 800-63B: at least 8 characters; a bound above keeps hashing cheap for hostile input. */
export const PASSWORD_MIN = 8;
export const PASSWORD_MAX = 256;

/**
 * Passwords of the sign-in page (OAuth consent), hashed with argon2id (the `argon2` package, the reference
 * implementation's binding; its defaults: 64 MiB, 3 passes, 4 lanes, OWASP's recommended floor or above). The hash
 * is a PHC string, so the parameters can be raised later and old hashes still verify.
 */
@Injectable()
export class PasswordsService {
  constructor(
    private readonly ds: DataSource,
    private readonly users: UsersRepository,
    private readonly audit: AuditService,
  ) {}

  /** Sets a user's password (admin CLI `user set-password`); audited `user.password_set` in their workspaces. */
  async setPassword(email: string, password: string): Promise<{ id: string; email: string; password_set: true }> {
    if ([...password].length < PASSWORD_MIN || [...password].length > PASSWORD_MAX)
      throw ProblemException.validation('password', `Must be ${PASSWORD_MIN} to ${PASSWORD_MAX} characters.`);
    const user = await this.users.signInCandidate(email);
    if (!user) throw ProblemException.notFound(`User ${email.trim().toLowerCase()}`);
    const hash = await argon2.hash(password, { type: argon2.argon2id });
    await this.ds.transaction(async (m) => {
      await this.users.setPasswordHash(user.id, hash, m);
      await this.audit.recordForUser(m, ADMIN_ACTOR, user.id, {
        event_name: 'user.password_set',
        category: 'auth',
        target_type: 'user',
        target_id: user.id,
        target_display_name: user.display_name,
      });
    });
    return { id: user.id, email: user.email, password_set: true };
  }

  /** Whether `password` is the one stored; false when none is (no timing shortcut: a dummy hash is checked). */
  async verify(hash: string | null, password: string): Promise<boolean> {
    if ([...password].length > PASSWORD_MAX) return false;
    try {
      return await argon2.verify(hash ?? (await this.dummy()), password);
    } catch {
      return false;
    }
  }

  private dummyHash: Promise<string> | null = null;
  /** A hash of nothing anyone knows, verified for unknown accounts so they take as long as known ones. */
  private dummy(): Promise<string> {
    return (this.dummyHash ??= argon2.hash(`no-account-${Math.random()}`, { type: argon2.argon2id }));
  }
}
