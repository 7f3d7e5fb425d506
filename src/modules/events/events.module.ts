import { Module } from '@nestjs/common';
import { OutboxEventsStore } from './outbox-events.store';
import { OutboxService } from './outbox.service';

@Module({ providers: [OutboxService, OutboxEventsStore], exports: [OutboxService] })
export class EventsModule {}
