/**
 * What a pinned scenario may say of a recorded value (pin.ts). A scenario answers for every
 * resource the sandbox makes, so a value that belongs to one recorded resource is never written:
 * an added key equal to another key of the same answer is a copy of that key; a UUID, an id, a
 * slug, a reference, an instant, an amount or a personal field gets a typed placeholder; and no
 * personal value the recording holds (a name, a phone, an email, an id number, an address, an
 * image URL, from any request or answer) is written, under any key or inside any text.
 */
import { parseEditPath, type PathStep } from '../engine/scenarios/edit.js'
import { isPersonalKey } from './mask.js'
import type { RecordLine } from './report.js'

/** A placeholder written instead of a recorded value, and what it stands for (for the comment). */
export type Placeholder = { path: string; value: unknown; what: string }

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i
const INSTANT = /^\d{4}-\d\d-\d\dT\d\d:\d\d(:\d\d)?(\.\d+)?(Z|[+-]\d\d:?\d\d)?$/
const DATE = /^\d{4}-\d\d-\d\d$/

/** A key as compared: lower case, without `_` and `-` (mask.ts's rule). */
const normal = (key: string) => key.toLowerCase().replace(/[_-]/g, '')
const AMOUNT_WORDS = ['amount', 'balance', 'fee', 'price', 'total']
const isAmountKey = (key: string) => AMOUNT_WORDS.some((word) => normal(key).includes(word))
/** `id`, `card_id`, `cardId`, `slug`, `reference`, `card_user_reference`, `identifier`. */
const ID_KEY = /(^|[_-])(id|slug|reference|ref|identifier)$|[a-z](Id|Slug|Reference|Ref)$|^ID$/

/**
 * The placeholder for a recorded scalar under `key`, or undefined when the value may be written
 * as recorded: an instant stays an instant of the same precision (the epoch), a UUID a UUID, a
 * number zero, an id's letters `x` and digits `0` in the same places.
 */
function placeholderOf(key: string, value: unknown): Omit<Placeholder, 'path'> | undefined {
  if (typeof value !== 'string' && typeof value !== 'number') return undefined
  if (typeof value === 'string' && UUID.test(value))
    return { value: '00000000-0000-4000-8000-000000000000', what: 'a UUID' }
  if (typeof value === 'string' && INSTANT.test(value))
    return { value: epochLike(value), what: 'an instant' }
  if (isPersonalKey(key)) return { value: personalPlaceholder(value), what: 'a personal field' }
  if (isAmountKey(key) && typeof value === 'number') return { value: 0, what: 'an amount' }
  if (isAmountKey(key) && typeof value === 'string' && /^-?\d+(\.\d+)?$/.test(value))
    return { value: '0', what: 'an amount' }
  if (ID_KEY.test(key) && typeof value === 'number') return { value: 0, what: 'an id' }
  if (ID_KEY.test(key) && typeof value === 'string')
    return { value: value.replace(/[A-Za-z]/g, 'x').replace(/\d/g, '0'), what: 'an id' }
  return undefined
}

/** `2026-11-28T17:00:13.123456Z` → `1970-01-01T00:00:00.000000Z`: the epoch, written the same way. */
function epochLike(instant: string): string {
  const [, seconds, fraction, zone] = INSTANT.exec(instant)!
  return (
    '1970-01-01T00:00' +
    (seconds ? ':00' : '') +
    (fraction ? '.' + '0'.repeat(fraction.length - 1) : '') +
    (zone === undefined ? '' : zone === 'Z' ? 'Z' : '+' + zone.slice(1).replace(/\d/g, '0'))
  )
}

/** A personal value's placeholder, of its type and kind (an email stays an email). */
function personalPlaceholder(value: unknown): unknown {
  if (typeof value === 'number') return 0
  if (typeof value !== 'string') return value
  if (value.includes('@')) return 'person@example.com'
  if (/^https?:\/\//i.test(value)) return 'https://example.com/placeholder.jpg'
  if (DATE.test(value)) return '1970-01-01'
  if (/^\+?[\d\s-]+$/.test(value)) return value.replace(/\d/g, '0')
  return 'placeholder'
}

/** The key of an error's messages by field (`errors: {email: ["…"]}`): its keys name no value. */
const ERRORS = 'errors'

/** What replaces a recorded personal value found inside a text or under another key. */
export const PERSONAL = '[personal]'

/** The personal values of a recording, to take out of what a scenario writes. */
export type PersonalValues = {
  /** Whether a whole value is one (a number is compared as its digits). */
  is(value: string): boolean
  /** A text with each one it holds replaced by `[personal]`. */
  scrub(text: string): string
}

/**
 * The personal values of a recording: under a personal key of a request or an answer (masked
 * values, `***` or `000`, are none; the keys of an `errors` object name fields, not values).
 */
export function personalValues(lines: RecordLine[]): PersonalValues {
  const found = new Set<string>()
  const walk = (value: unknown, personal: boolean, messages = false): void => {
    if (Array.isArray(value)) for (const item of value) walk(item, personal, messages)
    else if (value !== null && typeof value === 'object')
      for (const [key, inner] of Object.entries(value))
        walk(inner, personal || (!messages && isPersonalKey(key)), key === ERRORS)
    else if (personal && (typeof value === 'string' || typeof value === 'number')) {
      const text = String(value)
      if (text.length >= 3 && !/^[*0]+$/.test(text)) found.add(text)
    }
  }
  for (const line of lines) {
    walk(line.request?.body, false)
    walk(line.response?.body, false)
  }
  // one pattern, longest first; inside words too (a handle such as "AwaDiop" is no less theirs)
  const alternatives = [...found]
    .sort((a, b) => b.length - a.length)
    .map((value) => value.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'))
  const pattern = alternatives.length ? new RegExp(alternatives.join('|'), 'g') : undefined
  return {
    is: (value) => found.has(value),
    scrub: (text) => (pattern ? text.replace(pattern, PERSONAL) : text),
  }
}

/**
 * Writes a recorded value without the recording's personal data: a value under a personal key
 * replaced by a placeholder of its kind, each personal value inside a string by `[personal]`, a
 * number equal to one by 0; and, when `placeholders` is given (an added key), each scalar a
 * placeholder stands for (placeholderOf) replaced by it and listed there.
 */
export function withoutPersonal(
  value: unknown,
  personal: PersonalValues,
  at: { path: string; key: string; placeholders?: Placeholder[] },
): unknown {
  if (Array.isArray(value))
    return value.map((item, i) =>
      withoutPersonal(item, personal, { ...at, path: `${at.path}[${i}]` }),
    )
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {}
    for (const [key, inner] of Object.entries(value)) {
      const named = at.key === ERRORS ? '' : key
      out[key] = withoutPersonal(inner, personal, {
        ...at,
        key: named,
        path: childPath(at.path, key),
      })
    }
    return out
  }
  const placeholder = at.placeholders
    ? placeholderOf(at.key, value)
    : isPersonalKey(at.key) && (typeof value === 'string' || typeof value === 'number')
      ? { value: personalPlaceholder(value), what: 'a personal field' }
      : undefined
  if (placeholder) {
    at.placeholders?.push({ path: at.path, ...placeholder })
    return placeholder.value
  }
  if (typeof value === 'number') return personal.is(String(value)) ? 0 : value
  return typeof value === 'string' ? personal.scrub(value) : value
}

/** `$.data[3].x`, `$.data[].x` and `$.data.3.x` stand for every element: `$.data[*].x`. */
export function generalPath(path: string): string {
  return path.replace(/\[\d*\]/g, '[*]').replace(/\.\d+(?=$|[.[])/g, '[*]')
}

/** The key a path ends with (`$.data.card.status` → `status`), `''` for none. */
export function lastKey(path: string): string {
  const steps = parseEditPath(path)
  const last = typeof steps === 'string' ? undefined : steps.at(-1)
  return typeof last === 'string' && last !== '*' ? last : ''
}

const childPath = (path: string, key: string) =>
  /^[A-Za-z_$][\w$]*$/.test(key) ? `${path}.${key}` : `${path}[${JSON.stringify(key)}]`

/** A value an added key may be a copy of: text of 4 characters or more, a number of 4 digits or more. */
function copiable(value: unknown): value is string | number {
  if (typeof value === 'string') return value.length >= 4
  return typeof value === 'number' && Number.isInteger(value) && Math.abs(value) >= 1000
}

/** A path's text from its steps, as the edit effect reads it. */
export function pathText(steps: PathStep[]): string {
  return steps.reduce<string>(
    (path, step) =>
      step === '*'
        ? `${path}[*]`
        : typeof step === 'number'
          ? `${path}[${step}]`
          : childPath(path, step),
    '$',
  )
}

/** Every value a path (with `[*]`) names in a body, with the path's concrete steps. */
function occurrences(body: unknown, steps: PathStep[]): { at: PathStep[]; value: unknown }[] {
  const out: { at: PathStep[]; value: unknown }[] = []
  const walk = (value: unknown, i: number, at: PathStep[]) => {
    if (i === steps.length) return void out.push({ at, value })
    if (value === null || typeof value !== 'object') return
    const step = steps[i]
    if (step === '*') {
      if (Array.isArray(value)) value.forEach((item, n) => walk(item, i + 1, [...at, n]))
    } else if (Object.hasOwn(value, step))
      walk((value as Record<string | number, unknown>)[step], i + 1, [...at, step])
  }
  walk(body, 0, [])
  return out
}

/** The value a path names in a body: the first element that has it for each `[*]`. */
export function firstValueAt(body: unknown, path: string): unknown {
  const steps = parseEditPath(path)
  return typeof steps === 'string' ? undefined : occurrences(body, steps)[0]?.value
}

/** The concrete path of every copiable scalar of a body, by value. */
function scalarsByValue(body: unknown): Map<string | number, PathStep[][]> {
  const out = new Map<string | number, PathStep[][]>()
  const walk = (value: unknown, at: PathStep[]) => {
    if (Array.isArray(value)) value.forEach((item, n) => walk(item, [...at, n]))
    else if (value !== null && typeof value === 'object')
      for (const [key, inner] of Object.entries(value)) walk(inner, [...at, key])
    else if (copiable(value)) {
      const paths = out.get(value)
      if (paths) paths.push(at)
      else out.set(value, [at])
    }
  }
  walk(body, [])
  return out
}

/**
 * The source path of a copy (the edit's `copy: {target: source}`), written so that each `[*]`
 * of the target's, from the first, stands for the element the target is in when `found` is in
 * it too; undefined for the target itself or a value inside it.
 */
function sourcePath(
  found: PathStep[],
  target: PathStep[],
  concrete: PathStep[],
): string | undefined {
  if (concrete.every((step, i) => found[i] === step)) return undefined
  const general = [...found]
  for (let i = 0; i < target.length && i < found.length; i++) {
    if (found[i] !== concrete[i]) break
    if (target[i] === '*') general[i] = '*'
  }
  return pathText(general)
}

/**
 * Where an added key's value comes from, when it is a copy of another key of the same answer:
 * the closest key (the same object first) whose value equals it in every recorded answer (and
 * element) it is in.
 */
export function copySource(target: string, bodies: unknown[]): string | undefined {
  const steps = parseEditPath(target)
  if (typeof steps === 'string') return undefined
  let sources: string[] | undefined
  for (const body of bodies) {
    const byValue = scalarsByValue(body)
    for (const { at, value } of occurrences(body, steps)) {
      if (!copiable(value)) return undefined
      const shared = (found: PathStep[]) => {
        let n = 0
        while (n < found.length && found[n] === at[n]) n++
        return n
      }
      const here = (byValue.get(value) ?? [])
        .map((found) => ({ path: sourcePath(found, steps, at), shared: shared(found) }))
        .filter((found): found is { path: string; shared: number } => found.path !== undefined)
        .sort((a, b) => b.shared - a.shared)
        .map((found) => found.path)
      sources = sources === undefined ? here : sources.filter((path) => here.includes(path))
      if (sources.length === 0) return undefined
    }
  }
  return sources?.[0]
}
