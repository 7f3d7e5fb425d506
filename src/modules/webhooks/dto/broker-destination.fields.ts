import { applyDecorators } from '@nestjs/common';
import { ApiProperty, ApiPropertyOptional } from '@nestjs/swagger';
import { IsIn, IsString, MaxLength } from 'class-validator';
import { OptionalNotNull, OptionalNullable } from '../../../common/decorators/optional.decorators';
import { ENDPOINT_TYPES } from '../core/broker-transport/broker-destination';

/** The longest exchange, routing key or subject the DTO lets through (the service checks each one's own rule). */
const MAX_NAME_LENGTH = 255;

export const TYPE_RULES =
  '"http" POSTs each delivery to url; "rabbitmq" publishes it to exchange with routingKey (persistent, with ' +
  'publisher confirms) at an amqps:// url; "nats" publishes it to subject through JetStream at a tls:// url. ' +
  'The body is the same JSON; webhook-id, webhook-timestamp, webhook-signature and the custom headers are message ' +
  'headers. Credentials in a broker url are stored encrypted and shown masked. Fixed at create; a rabbitmq or ' +
  'nats endpoint needs the plan feature webhook_brokers';

/** The `type` field of a create (PATCH accepts only the stored value). */
export function EndpointTypeField(description: string): PropertyDecorator {
  return applyDecorators(
    ApiPropertyOptional({ enum: ENDPOINT_TYPES, example: 'rabbitmq', description }),
    OptionalNotNull(),
    IsIn(ENDPOINT_TYPES, { message: `type must be one of: ${ENDPOINT_TYPES.join(', ')}` }),
  );
}

/** exchange, routingKey or subject as a create or PATCH sends it; null as absent (the fields of other types). */
export function BrokerNameField(description: string, example: string): PropertyDecorator {
  return applyDecorators(
    ApiPropertyOptional({ type: String, nullable: true, maxLength: MAX_NAME_LENGTH, example, description }),
    OptionalNullable(),
    IsString(),
    MaxLength(MAX_NAME_LENGTH),
  );
}

export const EXCHANGE_RULES =
  'rabbitmq only, required there: the exchange to publish to ("" is the default exchange); letters, digits, - _ . :';
export const ROUTING_KEY_RULES = 'rabbitmq only, required there: the routing key, at most 255 bytes';
export const SUBJECT_RULES =
  'nats only, required there: the subject to publish to, which a JetStream stream must capture; dot-separated ' +
  'tokens without spaces or wildcards';

/** How reads show a broker's names: null on the endpoints of other types. */
export function BrokerNameReadField(description: string): PropertyDecorator {
  return ApiProperty({ type: String, nullable: true, description });
}
