/**
 * Keys the real service renamed, read from a route's recorded answers, for pin.ts to pin as the
 * edit's `rename` (each answer's own value moves under the new name). A rename shows as a key of
 * the sandbox's missing and one it lacks added, in the same object of the same answers; it is a
 * rename when the answer with the new name turned back is the sandbox's there: the value passes
 * the old key's schema, and at most half of an object's keys differ inside. Of two keys that
 * could be the old one, the one in its place (where the rename edit puts it) wins. A scalar
 * counts only when the old key's schema says more than a type (a format, a closed list): a
 * plain string missing beside another one added is a drop and an add.
 */
import { applyEdits, parseEditPath } from '../engine/scenarios/edit.js'
import { compareExchange, type Finding } from './compare.js'
import { firstValueAt, generalPath, pathText } from './pin-values.js'
import type { RecordLine } from './report.js'

export type Rename = {
  /** The sandbox's key: `$.data.userCard`, `$.data[*].last_four`. */
  path: string
  /** The same key as the real service names it: `$.data.cardUser`. */
  renamed: string
}

/** The last key of a path, and the path of the object it is in. */
function split(path: string): { parent: string; key: string } | undefined {
  const steps = parseEditPath(path)
  if (typeof steps === 'string') return undefined
  const key = steps.at(-1)
  if (typeof key !== 'string' || key === '*') return undefined
  return { parent: pathText(steps.slice(0, -1)), key }
}

/** The key's new name, as the edit's `rename` takes it. */
export const newName = (rename: Rename) => split(rename.renamed)!.key

const success = (line: RecordLine) => line.status >= 200 && line.status <= 299
const at = (finding: Finding) => generalPath(finding.path)
const has = (line: RecordLine, kind: Finding['kind'], path: string) =>
  (line.findings ?? []).some((f) => f.kind === kind && at(f) === path)
const under = (path: string, key: string) =>
  path.startsWith(`${key}.`) || path.startsWith(`${key}[`)

/** A schema's description that says a type and nothing more (compare.ts describeSchema). */
const BARE_TYPE =
  /^(string|number|integer|boolean|null|any)( or (string|number|integer|boolean|null))*$/

/** The renames of a route's recorded answers, in the order their findings come. */
export function findRenames(route: string, calls: RecordLine[]): Rename[] {
  const found: { rename: Rename; inPlace: boolean }[] = []
  for (const rename of candidates(calls)) {
    const lines = calls.filter((line) => success(line) && renamedIn(line, rename))
    const fits = lines.map((line) => explains(rename, line, route))
    if (fits.includes(false)) continue
    found.push({ rename, inPlace: fits.every((fit) => fit === 'in place') })
  }
  // of two keys that could be the old one renamed, the one in its place
  found.sort((a, b) => Number(b.inPlace) - Number(a.inPlace))
  const renames: Rename[] = []
  const taken = new Set<string>()
  for (const { rename } of found) {
    if (taken.has(rename.path) || taken.has(rename.renamed)) continue
    renames.push(rename)
    taken.add(rename.path).add(rename.renamed)
  }
  return renames
}

/** Each missing key beside each added one, in the same object of a success answer. */
function candidates(calls: RecordLine[]): Rename[] {
  const out = new Map<string, Rename>()
  for (const line of calls.filter(success)) {
    const findings = line.findings ?? []
    for (const missing of findings) {
      if (missing.kind !== 'missing-key') continue
      if (typeof missing.sandbox === 'string' && BARE_TYPE.test(missing.sandbox)) continue
      const old = split(at(missing))
      for (const extra of findings) {
        if (extra.kind !== 'extra-key') continue
        const added = split(at(extra))
        if (!old || !added || added.parent !== old.parent) continue
        const rename = { path: at(missing), renamed: at(extra) }
        out.set(`${rename.path}\0${rename.renamed}`, rename)
      }
    }
  }
  return [...out.values()]
}

/** The line's answer with the renamed keys named as the sandbox names them. */
function undone(line: RecordLine, renames: Rename[]): unknown {
  const rename = Object.fromEntries(renames.map((r) => [r.renamed, split(r.path)!.key]))
  return applyEdits({ status: 200, body: structuredClone(line.response?.body) }, [{ rename }]).body
}

function compared(line: RecordLine, body: unknown, route: string): Finding[] {
  return compareExchange({
    method: line.method,
    path: line.path,
    status: line.status,
    headers: line.response?.headers ?? {},
    body,
  }).filter((f) => f.route === route)
}

/**
 * Whether turning the new name back makes the answer the sandbox's at the old key, and whether
 * the key is where the old one is (no key order the answer did not already break).
 */
function explains(rename: Rename, line: RecordLine, route: string): false | 'in place' | 'moved' {
  const after = compared(line, undone(line, [rename]), route)
  // a key order inside the key differs inside, as its other findings do
  if (after.some((f) => at(f) === rename.path && f.kind !== 'key-order')) return false
  const inside = after.filter((f) => at(f) === rename.path || under(at(f), rename.path)).length
  const size = keysOf(firstValueAt(line.response?.body, rename.renamed))
  if (inside * 2 > size) return false
  const parent = split(rename.path)!.parent
  const reordered = (findings: Finding[]) =>
    findings.some((f) => f.kind === 'key-order' && at(f) === parent)
  return reordered(after) && !reordered(line.findings ?? []) ? 'moved' : 'in place'
}

/** How many keys a value has: an object's, an array's first item's. */
function keysOf(value: unknown): number {
  const item = Array.isArray(value) ? value[0] : value
  return item !== null && typeof item === 'object' ? Object.keys(item).length : 1
}

/**
 * The line's findings with its renames read as renames: the missing and added keys they explain
 * are gone, and what differs inside a renamed key is found in the answer with the old name
 * turned back, at the new name (a missing key at the old: a drop runs before the rename).
 */
export function withRenames(line: RecordLine, renames: Rename[], route: string): RecordLine {
  const applying = renames.filter((rename) => renamedIn(line, rename))
  if (!success(line) || applying.length === 0) return line
  const explained = (f: Finding) =>
    applying.some(
      (r) =>
        (f.kind === 'missing-key' && at(f) === r.path) ||
        (f.kind === 'extra-key' && at(f) === r.renamed),
    )
  const inside = compared(line, undone(line, applying), route)
    .filter((f) => applying.some((r) => under(at(f), r.path) || at(f) === r.path))
    .map((f) => (f.kind === 'missing-key' ? f : { ...f, path: renamedPath(f.path, applying) }))
  return { ...line, findings: [...(line.findings ?? []).filter((f) => !explained(f)), ...inside] }
}

/** A path under a renamed key, with the key's new name. */
function renamedPath(path: string, renames: Rename[]): string {
  const general = generalPath(path)
  for (const r of renames)
    if (general === r.path || under(general, r.path))
      return r.renamed + general.slice(r.path.length)
  return path
}

/** Whether a line's answer had the key renamed. */
export function renamedIn(line: RecordLine, rename: Rename): boolean {
  return has(line, 'missing-key', rename.path) && has(line, 'extra-key', rename.renamed)
}
