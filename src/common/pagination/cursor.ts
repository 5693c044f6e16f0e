import { ProblemException } from '../errors/problem.exception';
import { isUuid } from '../http/validation';

/** Keyset position: the ordering it was made for, the order value (as text) and the row id. */
export interface CursorPosition {
  order: string;
  value: string | null;
  id: string;
}

export function encodeCursor(pos: CursorPosition): string {
  return Buffer.from(JSON.stringify([pos.order, pos.value, pos.id]), 'utf8').toString('base64url');
}

export function decodeCursor(raw: string, expectedOrder: string): CursorPosition {
  const bad = () =>
    ProblemException.validation('cursor', 'The cursor is malformed or truncated. Use next_cursor exactly as returned.');
  if (!/^[A-Za-z0-9_-]+$/.test(raw)) throw bad();
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(raw, 'base64url').toString('utf8'));
  } catch {
    throw bad();
  }
  if (!Array.isArray(parsed) || parsed.length !== 3) throw bad();
  const [order, value, id] = parsed as unknown[];
  if (typeof order !== 'string' || (value !== null && typeof value !== 'string') || !isUuid(id)) throw bad();
  if (order !== expectedOrder) {
    throw ProblemException.validation(
      'cursor',
      `This cursor was made for order_by=${order}; repeat the same order_by on every page.`,
    );
  }
  return { order, value, id };
}
