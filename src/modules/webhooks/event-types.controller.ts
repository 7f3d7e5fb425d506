import { Controller, Get } from '@nestjs/common';
import { ApiTags } from '@nestjs/swagger';
import { AllowPortalSession } from '../../common/decorators/auth.decorators';
import { ApiEndpoint } from '../../common/http/api-docs';
import { EVENT_DESCRIPTIONS, EventType, SUBSCRIBABLE_EVENTS, TEST_EVENT } from '../events/event-catalog';
import { eventBodyExample, eventBodySchema } from '../events/event-schemas';
import { EventTypeDto, EventTypesDto } from './dto/webhook-responses.dto';

const describe = (name: EventType, subscribable: boolean): EventTypeDto => ({
  name,
  description: EVENT_DESCRIPTIONS[name],
  subscribable,
  schema: eventBodySchema(name),
  example: eventBodyExample(name),
});

const EVENT_TYPES: EventTypesDto = {
  items: SUBSCRIBABLE_EVENTS.map((name) => describe(name, true)),
  testEvent: describe(TEST_EVENT, false),
};

/** The event catalog (docs/api.md#webhooks): any logged-in user, no community needed. */
@ApiTags('webhooks')
@Controller('webhooks')
@AllowPortalSession()
export class EventTypesController {
  @Get('event-types')
  @ApiEndpoint({
    summary: 'Event names an endpoint may subscribe to, each with its body schema and an example',
    auth: 'jwt',
    response: EventTypesDto,
  })
  list(): EventTypesDto {
    return EVENT_TYPES;
  }
}
