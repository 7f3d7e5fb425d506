import type { ReencryptedBatch, SecretsUnderKey } from '../common/crypto/secret-cipher';
import { type AnswersUnderKeys, SealedAnswers } from '../modules/idempotency/sealed-answers';
import { WebhookSecretsService } from '../modules/webhooks/core/secrets/webhook-secrets.service';
import { CliError } from './cli-context';
import { type CommandSpec, plural, positiveInt } from './command-options';

type ReencryptedFailure = ReencryptedBatch['failed'][number];

const STANDING: Record<SecretsUnderKey['standing'], string> = {
  current: 'newest, encrypts',
  older: 'older, decrypts',
  unknown: 'NOT in the ring: cannot be decrypted',
};

function keyCountLines(counts: SecretsUnderKey[], noun: string): string[] {
  return counts.map(
    ({ keyId, count, standing }) => `  ${keyId} (${STANDING[standing]}): ${plural(count, noun)}`,
  );
}

function answerCountLines(counts: AnswersUnderKeys): string[] {
  const lines = keyCountLines(counts.byKey, 'answer');
  if (counts.inClear > 0)
    lines.push(`  in clear (kept before answers were sealed): ${plural(counts.inClear, 'answer')}`);
  return lines;
}

/** `secrets:reencrypt`: docs/operations.md, "Rotate the encryption key". */
export const REENCRYPT_COMMAND: CommandSpec = {
  usage: 'secrets:reencrypt [--batch-size N] [--max-batches M] [--dry-run]',
  description:
    "Re-encrypts every stored webhook signing secret, then every endpoint's custom headers, client key and OAuth " +
    'client secret, then every answer kept ' +
    'under an Idempotency-Key (sealing those kept in clear before answers were sealed), under the newest key of ' +
    'WEBHOOK_SECRET_ENCRYPTION_KEY (the first of the ring), N values per short transaction (default 100), printing ' +
    'progress after each batch. The API and the worker keep running meanwhile. Stop it with Ctrl-C (the batch in ' +
    'hand finishes) or --max-batches M, and run it again to continue. It ends with how many secrets and answers ' +
    'remain under older keys: at 0, the older keys can be removed from the ring. --dry-run only counts them under ' +
    'each key. Steps: docs/operations.md, "Rotate the encryption key".',
  options: {
    'batch-size': { type: 'string' },
    'max-batches': { type: 'string' },
    'dry-run': { type: 'boolean' },
  },
  stoppable: true,
  async run(app, options, io) {
    const batchSize = positiveInt(options, 'batch-size', 100);
    if (batchSize > 10_000) throw new CliError('--batch-size must be at most 10000');
    const maxBatches = positiveInt(options, 'max-batches');
    const secrets = app.get(WebhookSecretsService);
    const answers = app.get(SealedAnswers);
    const census = async () => [
      'Stored webhook secrets by encryption key:',
      ...keyCountLines(await secrets.countByKey(), 'secret'),
      'Answers kept under Idempotency-Keys by encryption key:',
      ...answerCountLines(await answers.countByKey()),
    ];
    for (const line of await census()) io.progress(line);
    if (options['dry-run'] === true) {
      const remain = await secrets.countNotUnderCurrentKey();
      const remainAnswers = await answers.countNotUnderCurrentKey();
      return [
        `Dry run: nothing changed; ${plural(remain, 'secret')} not under the newest key, and ` +
          `${plural(remainAnswers, 'Idempotency-Key answer')} in clear or under older keys`,
      ];
    }

    // the secrets first (skipping those that would not decrypt), then the answers, in id order
    const failed: (ReencryptedFailure & { what: string })[] = [];
    let secretsLeft = true;
    let answersAfter: string | null = '';
    const nextBatch = async (): Promise<ReencryptedBatch | null> => {
      if (secretsLeft) {
        const skip = failed.filter((f) => f.what === 'secret').map((f) => f.id);
        const batch = await secrets.reencryptBatch(batchSize, skip);
        failed.push(...batch.failed.map((f) => ({ ...f, what: 'secret' })));
        if (batch.moved > 0 || batch.failed.length > 0) return batch;
        secretsLeft = false;
      }
      if (answersAfter === null) return null;
      const batch = await answers.reencryptBatch(batchSize, answersAfter);
      answersAfter = batch.last;
      failed.push(...batch.failed.map((f) => ({ ...f, what: 'Idempotency-Key answer' })));
      return batch.last === null ? null : batch;
    };

    let batches = 0;
    let moved = 0;
    let stoppedBy: string | undefined;
    for (;;) {
      if (io.stop.aborted) stoppedBy = 'interrupted';
      else if (maxBatches !== undefined && batches >= maxBatches) stoppedBy = `--max-batches ${maxBatches}`;
      if (stoppedBy) break;
      const batch = await nextBatch();
      if (!batch) break;
      batches += 1;
      moved += batch.moved;
      io.progress(
        `Batch ${batches}: re-encrypted ${batch.moved}` +
          (batch.failed.length > 0 ? `, ${batch.failed.length} would not decrypt` : '') +
          ` (${moved} so far)`,
      );
    }

    const remain = await secrets.countNotUnderCurrentKey();
    const remainAnswers = await answers.countNotUnderCurrentKey();
    const counts = await secrets.countByKey();
    const answerCounts = await answers.countByKey();
    const lines = [
      stoppedBy
        ? `Stopped (${stoppedBy}) after ${plural(batches, 'batch')}: re-encrypted ${moved}.`
        : `Finished: re-encrypted ${moved} in ${plural(batches, 'batch')}.`,
      ...keyCountLines(counts, 'secret'),
      ...answerCountLines(answerCounts),
      ...failed.map((f) => `  ${f.what} ${f.id} was left as it is: ${f.reason}`),
      `${remain === 1 ? '1 secret remains' : `${remain} secrets remain`} under older keys, and ` +
        `${plural(remainAnswers, 'Idempotency-Key answer')} in clear or under older keys: ` +
        (remain + remainAnswers === 0
          ? 'the older keys can be removed from WEBHOOK_SECRET_ENCRYPTION_KEY.'
          : stoppedBy
            ? 'run the command again to continue.'
            : 'run the command again (rows a rotation held just then are taken by the next run).'),
    ];
    if ([...counts, ...answerCounts.byKey].some((c) => c.standing === 'unknown'))
      lines.push(
        'Secrets under a key that is not in the ring stay there: add that key back to re-encrypt them ' +
          '(answers also leave when they expire).',
      );
    return lines;
  },
};
