import { Prisma } from '../generated/prisma/client';
import { isDatabaseUnavailable } from './database-unavailable';

/** P2028 as Prisma's client throws it (its messages: @prisma/client/runtime, TransactionManagerError). */
function transactionError(message: string, meta?: Record<string, unknown>) {
  return new Prisma.PrismaClientKnownRequestError(`Transaction API error: ${message}`, {
    code: 'P2028',
    clientVersion: Prisma.prismaVersion.client,
    meta,
  });
}

describe('isDatabaseUnavailable (a 503 for want of a database, never a 500)', () => {
  it("knows pg's socket errors, its ended connections and a pool that had none in time", () => {
    expect(
      isDatabaseUnavailable(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' })),
    ).toBe(true);
    expect(isDatabaseUnavailable(new Error('Connection terminated unexpectedly'))).toBe(true);
    expect(isDatabaseUnavailable(new Error('timeout exceeded when trying to connect'))).toBe(true);
  });

  it('knows the SQLSTATEs of a server that cannot take the statement now, a read-only one included', () => {
    for (const code of ['08006', '57P01', '57P03', '53300', '25006'])
      expect(isDatabaseUnavailable(Object.assign(new Error('x'), { code, severity: 'FATAL' }))).toBe(true);
  });

  it("looks through Prisma's wrapping: its codes and its driver adapter's error", () => {
    expect(isDatabaseUnavailable(Object.assign(new Error('x'), { code: 'P1001' }))).toBe(true);
    const wrapped = Object.assign(new Error('x'), {
      code: 'P2010',
      meta: { driverAdapterError: { cause: { kind: 'postgres', code: '25006' } } },
    });
    expect(isDatabaseUnavailable(wrapped)).toBe(true);
    expect(isDatabaseUnavailable({ cause: { kind: 'ConnectionClosed' } })).toBe(true);
  });

  it('takes P2028 for unavailable only when no connection came to start the transaction on', () => {
    expect(isDatabaseUnavailable(transactionError('Unable to start a transaction in the given time.'))).toBe(
      true,
    );
    // the transaction started and outlived its timeout: the statement in it is too slow, a fault of the code
    const expired = transactionError(
      'A query cannot be executed on an expired transaction. The timeout for this transaction was 5000 ms, however 5012 ms passed since the start of the transaction. Consider increasing the interactive transaction timeout or doing less work in the transaction.',
      { operation: 'query', timeout: 5000, timeTaken: 5012 },
    );
    expect(isDatabaseUnavailable(expired)).toBe(false);
    expect(
      isDatabaseUnavailable(
        transactionError(
          'Transaction already closed: A query cannot be executed on a committed transaction.',
        ),
      ),
    ).toBe(false);
    expect(
      isDatabaseUnavailable(
        transactionError(
          "Transaction not found. Transaction ID is invalid, refers to an old closed transaction Prisma doesn't have information about anymore, or was obtained before disconnecting.",
        ),
      ),
    ).toBe(false);
  });

  it('leaves every other error alone: a constraint, a syntax error, a bug', () => {
    expect(isDatabaseUnavailable(Object.assign(new Error('duplicate'), { code: '23505' }))).toBe(false);
    expect(isDatabaseUnavailable(Object.assign(new Error('x'), { code: 'P2002' }))).toBe(false);
    expect(isDatabaseUnavailable(new TypeError("Cannot read properties of undefined (reading 'id')"))).toBe(
      false,
    );
    expect(isDatabaseUnavailable(undefined)).toBe(false);
  });
});
