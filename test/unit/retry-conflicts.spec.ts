import { CONFLICT_ATTEMPTS, retryConflicts } from '../../src/common/database/transaction-scope';

/** A failure as TypeORM reports PostgreSQL's (QueryFailedError keeps the driver's error). */
const pgError = (code: string) => Object.assign(new Error(code), { driverError: { code } });

describe('retryConflicts', () => {
  it('runs a deadlock victim or a serialization failure again until it succeeds', async () => {
    for (const code of ['40P01', '40001']) {
      let calls = 0;
      const result = await retryConflicts(async () => {
        if (++calls < CONFLICT_ATTEMPTS) throw pgError(code);
        return 'done';
      });
      expect([result, calls]).toEqual(['done', CONFLICT_ATTEMPTS]);
    }
  });

  it('gives up after CONFLICT_ATTEMPTS attempts with the last conflict', async () => {
    let calls = 0;
    const attempt = () => {
      calls++;
      return Promise.reject(pgError('40P01'));
    };
    await expect(retryConflicts(attempt)).rejects.toThrow('40P01');
    expect(calls).toBe(CONFLICT_ATTEMPTS);
  });

  it('never runs again what failed otherwise (a unique violation, a plain error)', async () => {
    for (const err of [pgError('23505'), new Error('boom')]) {
      let calls = 0;
      const attempt = () => {
        calls++;
        return Promise.reject(err);
      };
      await expect(retryConflicts(attempt)).rejects.toBe(err);
      expect(calls).toBe(1);
    }
  });
});
