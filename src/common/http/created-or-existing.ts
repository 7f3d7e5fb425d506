import { HttpStatus } from '@nestjs/common';
import type { FastifyReply } from 'fastify';
import { successEnvelope } from './success-envelope';

/**
 * The reply of a write that may find what it would create already there (liking twice): 201 when it
 * created `data`, 200 with the same body when `data` already existed and nothing changed. Document
 * the route with ApiEndpoint's `createdOrExisting`.
 *
 * A route's HttpCode is fixed, so such a route takes the reply (`@Res() reply: FastifyReply`) and
 * sends its answer itself, in the envelope every other route's result gets (createFastifyAdapter).
 */
export async function replyCreatedOrExisting<T>(
  reply: FastifyReply,
  outcome: { created: boolean },
  data: T,
): Promise<void> {
  await reply.status(outcome.created ? HttpStatus.CREATED : HttpStatus.OK).send(successEnvelope(data));
}
