/** DI token of the worker's WebhookSender (signing with cached live secrets, see CachedLiveSecrets). */
export const DELIVERY_SENDER = Symbol('DELIVERY_SENDER');
