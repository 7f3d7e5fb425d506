import { Injectable, Logger } from '@nestjs/common';
import { AppConfig } from '../../../config/app-config';
import { PrismaService } from '../../../prisma/prisma.service';
import { OutboxService } from '../../events/outbox.service';
import { EndpointTransportStore } from '../core/http-transport/endpoint-transport.store';
import { CERTIFICATE_WARNING_DAYS, urlForOperationalEvents } from '../core/webhook-operational.events';

const WARNING_MS = CERTIFICATE_WARNING_DAYS * 24 * 60 * 60 * 1000;
/** Certificates announced per transaction; a longer list takes the next look. */
const BATCH = 100;

/**
 * Raises webhook.endpoint.certificate_expiring (docs/api.md#mutual-tls) once per client certificate,
 * CERTIFICATE_WARNING_DAYS before its notAfter: every WEBHOOK_SWEEP_INTERVAL it marks the certificates
 * that reached their warning and records their events in the same transaction, so whichever worker
 * looks first announces each once. A new certificate (PATCH `tls`) is announced afresh.
 */
@Injectable()
export class CertificateExpiry {
  private readonly logger = new Logger(CertificateExpiry.name);
  private timer?: NodeJS.Timeout;
  private running?: Promise<number>;

  constructor(
    private readonly prisma: PrismaService,
    private readonly store: EndpointTransportStore,
    private readonly outbox: OutboxService,
    private readonly config: AppConfig,
  ) {}

  start(): void {
    this.timer ??= setInterval(() => void this.checkSafely(), this.config.webhookSweepIntervalMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.running;
  }

  /** Announces every certificate that reached its warning; returns how many. */
  async check(): Promise<number> {
    let announced = 0;
    for (;;) {
      const batch = await this.prisma.$transaction(async (tx) => {
        const expiring = await this.store.markExpiring(tx, WARNING_MS, BATCH);
        for (const endpoint of expiring) {
          const { subject, fingerprintSha256, notAfter } = endpoint.tls.view.clientCertificate;
          await this.outbox.record(tx, endpoint.community_id, 'webhook.endpoint.certificate_expiring', {
            endpointId: endpoint.id,
            url: urlForOperationalEvents(endpoint.url),
            subject,
            fingerprintSha256,
            notAfter: new Date(notAfter),
          });
        }
        return expiring.length;
      });
      announced += batch;
      if (batch < BATCH) return announced;
    }
  }

  private async checkSafely(): Promise<void> {
    if (this.running) return;
    this.running = this.check().catch((err: Error) => {
      this.logger.warn({ msg: 'certificate expiry check failed, will retry', error: err.message });
      return 0;
    });
    const announced = await this.running;
    this.running = undefined;
    if (announced > 0) this.logger.log({ msg: 'client certificates expiring soon announced', announced });
  }
}
