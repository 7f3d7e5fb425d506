import { Controller, Get } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { ApiEndpoint } from '../../common/http/api-docs';
import { EVENT_DESCRIPTIONS, SUBSCRIBABLE_EVENTS, TEST_EVENT } from '../events/event-catalog';
import { EventTypesDto } from './dto/webhook-responses.dto';

const EVENT_TYPES: EventTypesDto = {
  items: SUBSCRIBABLE_EVENTS.map((name) => ({
    name,
    description: EVENT_DESCRIPTIONS[name],
    subscribable: true,
  })),
  testEvent: { name: TEST_EVENT, description: EVENT_DESCRIPTIONS[TEST_EVENT], subscribable: false },
};

/** The event catalog (contract §5 extension): any logged-in user, no community needed. */
@ApiTags('webhooks')
@Controller('webhooks')
export class EventTypesController {
  @Get('event-types')
  @ApiEndpoint({ summary: 'Event names an endpoint may subscribe to', auth: 'jwt', response: EventTypesDto })
  list(): EventTypesDto {
    return EVENT_TYPES;
  }
}
