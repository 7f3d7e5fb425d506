import { Injectable } from '@nestjs/common';
import { Errors } from '../../common/errors/app-error';
import { EndpointFigures, endpointFigures, FIGURE_PERIOD_HOURS, FigurePeriod } from './attempt-figures';
import { AttemptStatsStore } from './core/attempt-stats.store';

/** An endpoint's figures over time, from its hourly buckets only (never the attempts themselves). */
@Injectable()
export class WebhookFiguresService {
  constructor(private readonly stats: AttemptStatsStore) {}

  /** The period's hourly figures of the endpoint; 404 when the community has no such endpoint. */
  async figures(communityId: string, endpointId: string, period: FigurePeriod): Promise<EndpointFigures> {
    const stored = await this.stats.endpointHours(communityId, endpointId, FIGURE_PERIOD_HOURS[period]);
    if (!stored) throw Errors.notFound('Webhook endpoint');
    return endpointFigures(period, stored);
  }
}
