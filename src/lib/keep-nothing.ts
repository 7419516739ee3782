/**
 * A map that keeps nothing: what a process would cache from the store, when replicas share it
 * (PostgreSQL) and another one may change it at any time (the token cache, the scenarios in
 * force). Reads then go to the store every time.
 */
export class KeepNothing<K, V> extends Map<K, V> {
  override set(): this {
    return this
  }
}
