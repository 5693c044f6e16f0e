import { Injectable } from '@nestjs/common';
import { UsersRepository } from './users.repository';

/**
 * What other features may ask of the users (the admin CLI, apps' bot users, OAuth sign-in): the users'
 * repository stays private to this folder (eslint/boundaries.mjs).
 */
@Injectable()
export class UsersService {
  constructor(private readonly repo: UsersRepository) {}

  findByEmail(...args: Parameters<UsersRepository['findByEmail']>) {
    return this.repo.findByEmail(...args);
  }

  findById(...args: Parameters<UsersRepository['findById']>) {
    return this.repo.findById(...args);
  }

  listAll(...args: Parameters<UsersRepository['listAll']>) {
    return this.repo.listAll(...args);
  }

  insert(...args: Parameters<UsersRepository['insert']>) {
    return this.repo.insert(...args);
  }

  insertBot(...args: Parameters<UsersRepository['insertBot']>) {
    return this.repo.insertBot(...args);
  }

  signInCandidate(...args: Parameters<UsersRepository['signInCandidate']>) {
    return this.repo.signInCandidate(...args);
  }
}
