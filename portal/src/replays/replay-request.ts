import type { ReplayRequest } from '../api/types';

/** The Replays form as typed (docs/api.md#bulk-replay); empty fields select everything. */
export interface ReplayDraft {
  /** datetime-local values, in the viewer's time zone */
  since: string;
  until: string;
  /** none chosen: every endpoint of the community */
  endpointIds: string[];
  eventType: string;
  status: NonNullable<ReplayRequest['status']>;
  /** codes, classes or `network`, comma-separated: "503, 4xx, network" */
  responseStatus: string;
}

export const NEW_REPLAY: ReplayDraft = {
  since: '',
  until: '',
  endpointIds: [],
  eventType: '',
  status: 'FAILED',
  responseStatus: '',
};

/** The request body for a draft: local times as ISO instants, codes as numbers, the rest left to the API. */
export function replayRequest(draft: ReplayDraft, dryRun: boolean): ReplayRequest {
  const body: ReplayRequest = { since: new Date(draft.since).toISOString(), status: draft.status, dryRun };
  if (draft.until) body.until = new Date(draft.until).toISOString();
  if (draft.endpointIds.length > 0) body.endpointIds = draft.endpointIds;
  if (draft.eventType) body.eventTypes = [draft.eventType];
  const answers = draft.responseStatus
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  if (answers.length > 0)
    body.responseStatus = answers.map((a) =>
      /^\d+$/.test(a) ? Number(a) : a,
    ) as ReplayRequest['responseStatus'];
  return body;
}
