/** DI token of the resolver used for target addresses (tests provide one that answers what they need). */
export const WEBHOOK_DNS_LOOKUP = Symbol('WEBHOOK_DNS_LOOKUP');
