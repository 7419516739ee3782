/**
 * A scenario rule's `edit` effect: changes the sandbox's own JSON answer after its handler ran
 * (the resource is still created, with the sandbox's references), to reproduce the real
 * service's shape where it differs — a key added, copied from another, dropped or renamed, a
 * value of another type, another status or envelope message. Paths are JSON paths from the
 * answer's top: `$.data.card.status`, `$.data[0].status` (one element), `$.data[*].status`
 * (every element). An edit's paths are parsed once, on its first answer (compiledEdit).
 */
import { z } from 'zod'

export const EDIT_TYPES = ['string', 'number', 'boolean', 'null', 'array', 'object'] as const
export type EditType = (typeof EDIT_TYPES)[number]

/** One step of a path: an object key, an array index, or every element (`*`). */
export type PathStep = string | number | '*'

const STEP = /^(?:\.([^.[\]]+)|\[(\d+)\]|\[\*\]|\['([^']*)'\]|\["([^"]*)"\])/

/** A JSON path's steps, or a message saying why it is not one. */
export function parseEditPath(path: string): PathStep[] | string {
  if (!path.startsWith('$'))
    return "expected a JSON path from the answer's top, such as $.data.card.status"
  const steps: PathStep[] = []
  let rest = path.slice(1)
  while (rest.length > 0) {
    const step = STEP.exec(rest)
    if (!step) return `cannot read "${rest}" in ${path}: expected .key, [n], [*] or ['key']`
    if (step[1] !== undefined) steps.push(step[1])
    else if (step[2] !== undefined) steps.push(Number(step[2]))
    else if (step[3] !== undefined || step[4] !== undefined) steps.push((step[3] ?? step[4])!)
    else steps.push('*')
    rest = rest.slice(step[0].length)
  }
  if (steps.length === 0)
    return 'expected a path to a key (the whole answer is not one): $.data.card.status'
  return steps
}

/** Why a path cannot be edited, if it cannot; `key`: it must end at an object key. */
function pathProblem(path: string, key: boolean): string | undefined {
  const steps = parseEditPath(path)
  if (typeof steps === 'string') return steps
  const last = steps.at(-1)
  if (key && (typeof last !== 'string' || last === '*'))
    return `${path} must end with a key (.name), not an index`
  return undefined
}

/**
 * Paths checked as keys of the record, each problem at its own key (zod's record key schema
 * would say only "Invalid key in record").
 */
function byPath<T extends z.ZodType>(value: T, key: boolean) {
  return z.record(z.string(), value).superRefine((record, check) => {
    for (const path of Object.keys(record)) {
      const problem = pathProblem(path, key)
      if (problem) check.addIssue({ code: 'custom', message: problem, path: [path] })
    }
  })
}
const keyPath = z.string().superRefine((path, check) => {
  const problem = pathProblem(path, true)
  if (problem) check.addIssue({ code: 'custom', message: problem })
})

const wildcards = (steps: PathStep[]) => steps.filter((step) => step === '*').length

/** Why a copy's source cannot be read for its target, if it cannot. */
function copyProblem(to: string, from: string): string | undefined {
  const source = parseEditPath(from)
  if (typeof source === 'string') return source
  const target = parseEditPath(to)
  if (typeof target === 'string') return undefined // said at the key
  if (wildcards(source) > wildcards(target))
    return `${from} has more [*] than ${to}: each [*] of the source takes the element of the target's`
  return undefined
}

/** `copy: {to: from}`: each target checked as a key, each source as a path it can read. */
const copies = byPath(z.string(), true).superRefine((record, check) => {
  for (const [to, from] of Object.entries(record)) {
    const problem = copyProblem(to, from)
    if (problem) check.addIssue({ code: 'custom', message: problem, path: [to] })
  }
})

export const editSchema = z
  .strictObject({
    /** Sets a key: a new one, or a new value for one that is there (an enum's other value). */
    add: byPath(z.unknown(), true).optional(),
    /**
     * Sets a key to the value of another key of the same answer (`{to: from}`); each `[*]` of
     * `from` is the element the target's `[*]` at the same rank is in.
     */
    copy: copies.optional(),
    drop: z.array(keyPath).optional(),
    /** The key's new name, in the same place among its siblings. */
    rename: byPath(z.string().min(1), true).optional(),
    retype: byPath(z.enum(EDIT_TYPES), false).optional(),
    /** The answer's HTTP status (and the envelope's `statusCode` when it has one). */
    status: z.number().int().min(200).max(599).optional(),
    /** The envelope's `message`. */
    message: z.string().optional(),
  })
  .refine((edit) => Object.values(edit).some((value) => value !== undefined), {
    message: 'expected at least one of add, copy, drop, rename, retype, status, message',
  })

export type Edit = z.infer<typeof editSchema>

/** An edit with its paths parsed (`steps`): what applies to each answer. */
type CompiledEdit = {
  drop: PathStep[][]
  rename: [PathStep[], string][]
  retype: [PathStep[], EditType][]
  add: [PathStep[], unknown][]
  copy: [PathStep[], PathStep[]][]
  status?: number
  message?: string
}

const compiled = new WeakMap<Edit, CompiledEdit>()

/** The edit's paths, parsed on its first answer and kept with it (the rule's own object). */
function compiledEdit(edit: Edit): CompiledEdit {
  let done = compiled.get(edit)
  if (!done) {
    const parsed = <T>(record: Record<string, T> | undefined) =>
      Object.entries(record ?? {}).map(([path, value]): [PathStep[], T] => [steps(path), value])
    done = {
      drop: (edit.drop ?? []).map(steps),
      rename: parsed(edit.rename),
      retype: parsed(edit.retype),
      add: parsed(edit.add),
      copy: parsed(edit.copy).map(([to, from]): [PathStep[], PathStep[]] => [to, steps(from)]),
      status: edit.status,
      message: edit.message,
    }
    compiled.set(edit, done)
  }
  return done
}

/**
 * Applies edits, in order, to a 2xx answer's parsed JSON (an error answer is left as the handler
 * made it). Within one edit: drop, rename, retype, add, copy, then status and message.
 */
export function applyEdits(
  answer: { status: number; body: unknown },
  edits: Edit[],
): { status: number; body: unknown } {
  if (answer.status < 200 || answer.status > 299) return answer
  const { body } = answer
  let { status } = answer
  for (const edit of edits) {
    const { drop, rename, retype: retyped, add, copy, ...envelope } = compiledEdit(edit)
    for (const path of drop) {
      forEachParent(body, path, (parent, key) => {
        if (isObject(parent)) delete parent[key as string]
      })
    }
    for (const [path, name] of rename) {
      forEachParent(body, path, (parent, key) => {
        if (!isObject(parent) || !(key in parent)) return
        // rebuilt so the renamed key keeps its place among its siblings
        const entries = Object.entries(parent)
        for (const [k] of entries) delete parent[k]
        for (const [k, v] of entries) parent[k === key ? name : k] = v
      })
    }
    for (const [path, type] of retyped) {
      forEachParent(body, path, (parent, key) => {
        const holder = parent as Record<string | number, unknown>
        if (!(key in holder)) return
        holder[key] = retype(holder[key], type)
      })
    }
    for (const [path, value] of add) {
      forEachParent(
        body,
        path,
        (parent, key) => {
          if (isObject(parent)) parent[key as string] = structuredClone(value)
        },
        true,
      )
    }
    for (const [to, from] of copy) {
      forEachParent(
        body,
        to,
        (parent, key, elements) => {
          const value = valueAt(body, from, elements)
          if (isObject(parent) && value !== undefined)
            parent[key as string] = structuredClone(value)
        },
        true,
      )
    }
    if (envelope.status !== undefined) {
      status = envelope.status
      if (isObject(body) && typeof body.statusCode === 'number') body.statusCode = envelope.status
    }
    if (envelope.message !== undefined && isObject(body)) body.message = envelope.message
  }
  return { status, body }
}

function steps(path: string): PathStep[] {
  const parsed = parseEditPath(path)
  if (typeof parsed === 'string') throw new Error(parsed)
  return parsed
}

/** The value a path names, each of its `[*]` in turn taking the next of `elements`. */
function valueAt(body: unknown, path: PathStep[], elements: number[]): unknown {
  let value = body
  let rank = 0
  for (const step of path) {
    if (value === null || typeof value !== 'object') return undefined
    const key = step === '*' ? elements[rank++] : step
    if (typeof key === 'number' ? !Array.isArray(value) : Array.isArray(value)) return undefined
    if (!Object.hasOwn(value, key)) return undefined
    value = (value as Record<string | number, unknown>)[key]
  }
  return value
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
}

/**
 * Calls `visit` with each container the path's last step is in, that step (`*` as the last step
 * visits every index), and the element each `*` on the way took. `create` makes missing
 * objects on the way (add, copy).
 */
function forEachParent(
  value: unknown,
  path: PathStep[],
  visit: (
    parent: Record<string, unknown> | unknown[],
    key: string | number,
    elements: number[],
  ) => void,
  create = false,
  from = 0,
  elements: number[] = [],
): void {
  const step = path[from]
  if (value === null || typeof value !== 'object') return
  const container = value as Record<string | number, unknown>
  if (from === path.length - 1) {
    if (step === '*') {
      if (Array.isArray(value)) for (let i = 0; i < value.length; i++) visit(value, i, elements)
    } else visit(value as Record<string, unknown>, step, elements)
    return
  }
  if (step === '*') {
    if (!Array.isArray(value)) return
    for (let i = 0; i < value.length; i++) {
      elements.push(i)
      forEachParent(value[i], path, visit, create, from + 1, elements)
      elements.pop()
    }
    return
  }
  if (typeof step === 'number' && !Array.isArray(value)) return
  if (typeof step === 'string' && Array.isArray(value)) return
  const next = path[from + 1]
  if (create && container[step] === undefined && typeof next === 'string' && next !== '*')
    container[step] = {}
  forEachParent(container[step], path, visit, create, from + 1, elements)
}

/** A value in another JSON type, keeping what it says where it can (`12` ↔ `"12"`). */
function retype(value: unknown, type: EditType): unknown {
  switch (type) {
    case 'string':
      return typeof value === 'string'
        ? value
        : value === null
          ? ''
          : typeof value === 'object'
            ? JSON.stringify(value)
            : String(value as number | boolean)
    case 'number': {
      if (typeof value === 'number') return value
      if (typeof value === 'boolean') return value ? 1 : 0
      const n = typeof value === 'string' && value.trim() !== '' ? Number(value) : NaN
      return Number.isFinite(n) ? n : 0
    }
    case 'boolean':
      return typeof value === 'string'
        ? value !== '' && value !== 'false' && value !== '0'
        : Boolean(value)
    case 'null':
      return null
    case 'array':
      return Array.isArray(value) ? value : value === null ? [] : [value]
    case 'object':
      return isObject(value) ? value : {}
  }
}
