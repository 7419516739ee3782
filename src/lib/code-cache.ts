/**
 * Runs a CommonJS module with V8's code cache, as Node 22's module.enableCompileCache() would (Node
 * 20 has none): the bytecode of the functions a start compiled is kept beside the file in
 * `<file>.cache`, and the next start reads it instead of parsing and compiling 1.2 MB of
 * JavaScript (about a quarter of a cold start).
 *
 * The file is the module already inside node's wrapper, `(function (exports, require, module,
 * __filename, __dirname) {…})` (the bundled command, dist/bin/cli.cjs, as scripts/bundle.mjs
 * writes it), so that V8 compiles the text as read: wrapping it here would make another copy of
 * 1.2 MB for V8 to compile from, and every new page of memory a start touches costs it time (12 µs
 * a page on a virtual machine measured). ASCII text (the bundle's) is handed to V8 as Latin-1,
 * which node keeps outside V8's heap.
 *
 * The cache begins with the CRC-32 of the source it was made from, as Node's own compile cache
 * does: V8 checks its own version, its flags and the source's length, not its content, and the
 * bytecode of another build would run the wrong code. The bytecode starts 8 bytes in: V8 reads a
 * cache where it lies only when it is 8-byte aligned, and copies it whole first otherwise.
 * Without a cache, or with one V8 or the hash refuses, the file compiles as usual and a cache is
 * written `writeAfterMs` later (timer unref'd: a short-lived command writes none), when the
 * start and its first requests have compiled what they need; written beside the file through a
 * rename, or not at all where that directory is read-only. Only a plain start writes one: node
 * options (`--single-threaded` under valgrind, `--cpu-prof`, NODE_OPTIONS) change V8's flags,
 * and a cache made under them would be refused by every plain start after it.
 *
 * `afterStart` runs `writeAfterMs` after the start, once the cache is written: where V8 flags
 * may change. V8 accepts a code cache only under the flags it was made under, node's own for its
 * built-in modules as well as this one, so a flag set before would have V8 compile every built-in
 * module the start loads (a sixth of a start's instructions) and write a cache the next start
 * refuses.
 */
import { isAscii } from 'node:buffer'
import { readFileSync, renameSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname } from 'node:path'
import { constants, Script } from 'node:vm'
import { crc32 } from 'node:zlib'

export type CodeCacheUse = 'accepted' | 'rejected' | 'stale' | 'none'

/** The CRC-32, then zeros to where the bytecode starts. */
const HEADER_BYTES = 8

const plainStart = () => process.execArgv.length === 0 && !process.env.NODE_OPTIONS

export function runWithCodeCache(
  file: string,
  {
    writeAfterMs = 2_000,
    mayWrite = plainStart(),
    afterStart,
  }: { writeAfterMs?: number; mayWrite?: boolean; afterStart?: () => void } = {},
): CodeCacheUse {
  const source = readFileSync(file)
  const checksum = crc32(source)
  const cacheFile = `${file}.cache`
  const cache = readOrUndefined(cacheFile)
  const fresh =
    cache !== undefined && cache.length > HEADER_BYTES && cache.readUInt32BE(0) === checksum
  const script = new Script(isAscii(source) ? source.toString('latin1') : source.toString('utf8'), {
    filename: file,
    cachedData: fresh ? cache.subarray(HEADER_BYTES) : undefined,
    // an import() in the file loads as it would in a module node loaded itself
    importModuleDynamically: constants.USE_MAIN_CONTEXT_DEFAULT_LOADER,
  })
  const use: CodeCacheUse =
    cache === undefined
      ? 'none'
      : !fresh
        ? 'stale'
        : script.cachedDataRejected
          ? 'rejected'
          : 'accepted'
  const write = use !== 'accepted' && mayWrite
  if (write || afterStart)
    setTimeout(() => {
      if (write) writeCache(cacheFile, checksum, script)
      afterStart?.()
    }, writeAfterMs).unref()
  const wrapper: unknown = script.runInThisContext()
  if (typeof wrapper !== 'function')
    throw new Error(`${file} is not a CommonJS module inside node's wrapper function`)
  const module = { exports: {} }
  wrapper(module.exports, createRequire(file), module, file, dirname(file))
  return use
}

function readOrUndefined(file: string): Buffer | undefined {
  try {
    return readFileSync(file)
  } catch {
    return undefined
  }
}

function writeCache(cacheFile: string, checksum: number, script: Script): void {
  const partial = `${cacheFile}.${process.pid}`
  const header = Buffer.alloc(HEADER_BYTES)
  header.writeUInt32BE(checksum)
  try {
    writeFileSync(partial, Buffer.concat([header, script.createCachedData()]))
    renameSync(partial, cacheFile)
  } catch {
    // a read-only install: every start compiles, as it did before the cache
  }
}
