import { useTestApp } from '../utils/app';
import { createCommunity } from '../utils/factories';
import { createEndpoint, DELIVERY_TEST_ENV, outboxRetentionOf } from '../utils/worker';

describe('outbox retention', () => {
  const api = useTestApp(DELIVERY_TEST_ENV);

  it('deletes relayed rows past the retention and keeps recent or unrelayed ones', async () => {
    const community = await createCommunity(api.app);
    const day = 24 * 3600_000;
    const row = (name: string, relayedAt: Date | null, createdAt = new Date()) => ({
      communityId: community.id,
      messageId: `msg_retention_${name}_${community.id}`,
      eventType: 'tweet.created',
      payload: {},
      relayedAt,
      createdAt,
    });
    await api.prisma.outboxEvent.createMany({
      data: [
        row('old', new Date(Date.now() - 8 * day), new Date(Date.now() - 8 * day)),
        row('recent', new Date(Date.now() - 1 * day)),
        // never relayed (e.g. no worker ran for a while): it must wait to be relayed, however old
        row('stuck', null, new Date(Date.now() - 30 * day)),
      ],
    });
    // (a concurrently running worker may relay 'stuck' meanwhile: relayed just now, it is kept too)

    await outboxRetentionOf(api).prune(7 * day);

    const left = await api.prisma.outboxEvent.findMany({ where: { communityId: community.id } });
    expect(left.map((r) => r.messageId.split('_')[2]).sort()).toEqual(['recent', 'stuck']);
  });

  it('keeps the body of an event an endpoint missed within the message retention, and forgets missed events twice that old', async () => {
    const community = await createCommunity(api.app);
    const day = 24 * 3600_000;
    const ago = (days: number) => new Date(Date.now() - days * day);
    // paused: it is never sent anything (the rows below are written as the relay would)
    const endpoint = await createEndpoint(api, community.id, {
      url: 'http://127.0.0.1:9/missed',
      events: ['tweet.created'],
      isActive: false,
    });
    const names = ['young', 'expired', 'forgotten'];
    const raised = { young: ago(10), expired: ago(40), forgotten: ago(70) };
    await api.prisma.outboxEvent.createMany({
      data: names.map((name) => ({
        communityId: community.id,
        messageId: `msg_missed_${name}_${community.id}`,
        eventType: 'tweet.created',
        payload: {},
        relayedAt: ago(8),
        createdAt: ago(8),
      })),
    });
    const rows = await api.prisma.outboxEvent.findMany({ where: { communityId: community.id } });
    const idOf = (name: string) => rows.find((r) => r.messageId.split('_')[2] === name)!.id;
    await api.prisma.webhookMissedEvent.createMany({
      data: names.map((name) => ({
        communityId: community.id,
        endpointId: endpoint.id,
        outboxId: idOf(name),
        raisedAt: raised[name as keyof typeof raised],
      })),
    });

    await outboxRetentionOf(api).prune(7 * day, 30 * day);

    // the young one's body stays for recover; the others' go
    const left = await api.prisma.outboxEvent.findMany({ where: { communityId: community.id } });
    expect(left.map((r) => r.messageId.split('_')[2])).toEqual(['young']);
    // the expired one is still counted by recover; the one twice the retention old is forgotten
    const missed = await api.prisma.webhookMissedEvent.findMany({
      where: { endpointId: endpoint.id },
      orderBy: { outboxId: 'asc' },
    });
    expect(missed.map((m) => m.outboxId)).toEqual([idOf('young'), idOf('expired')]);
  });
});
