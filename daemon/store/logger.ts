// The slice of a pino logger the store needs, so the store can be opened without Fastify.
export type StoreLogFn = (objOrMsg: object | string, msg?: string) => void;

export interface StoreLogger {
  info: StoreLogFn;
  warn: StoreLogFn;
  error: StoreLogFn;
}
