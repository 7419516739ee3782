// The types of pg-wire-relay.mjs (plain JavaScript, shared by the bench and the tests).

/** What a relay has counted since it started or was last reset (see pg-wire-relay.mjs). */
export type WireCounts = {
  query: number
  parse: number
  bind: number
  execute: number
  sync: number
  /** Query + Execute messages. */
  statements: number
  /** The backend's ReadyForQuery messages. */
  ready: number
  /** The times a client, having received a ReadyForQuery, sent again. */
  roundTrips: number
  /** Backend connections opened. */
  connections: number
}

export type PgWireRelay = {
  port: number
  /** `url` with its host and port replaced by the relay's, its parameters kept. */
  urlOf(url: string): string
  counts(): WireCounts
  reset(): void
  /** Resolves once a message has passed (within a second) and then none for `quietMs`. */
  afterTraffic(quietMs: number): Promise<void>
  /**
   * Arms a fault: every connection ends when a client sends a statement (Query or Parse) whose
   * text holds `text`, which is not forwarded; with `refuse`, every new connection ends at once
   * until `reopen`. Resolves once it has cut.
   */
  cutAt(text: string, options?: { refuse?: boolean }): Promise<void>
  /** Lets new connections through again after a cut with `refuse`. */
  reopen(): void
  close(): Promise<void>
}

/** Starts a relay on 127.0.0.1 (a port of its own) to the server `target` (a postgres:// URL) names. */
export function startPgWireRelay(target: string): Promise<PgWireRelay>
