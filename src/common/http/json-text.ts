/**
 * A handler's result already written as JSON text, by PostgreSQL (newestFirstPage): the API sends it
 * inside the success envelope as it is, without parsing it into objects and writing it out again
 * (ContractFastifyAdapter.reply, src/bootstrap/http-app.ts). `T` is the shape the text holds, for the
 * reader and the OpenAPI document's DTO; anything that serialises the value itself gets that shape too
 * (toJSON).
 */
export class JsonText<T = unknown> {
  /** the shape the text holds; never set */
  declare readonly shape?: T;

  constructor(readonly json: string) {}

  toJSON(): T {
    return JSON.parse(this.json) as T;
  }
}
