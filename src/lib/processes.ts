/**
 * What the command knows of other processes, for the database lock, the pid file and the
 * watches of its parent or launcher: whether one is running, when it started (a pid can be
 * reused; its start time tells the new process from the old one) and its parent. Linux reads
 * /proc; other POSIX systems ask `ps`; Windows answers what `process.kill(pid, 0)` can tell.
 */
import { fstatSync, readFileSync } from 'node:fs'
import { createRequire } from 'node:module'

/** Clock ticks per second of /proc's times: USER_HZ, 100 on every Linux architecture Node runs on. */
const USER_HZ = 100

/** Whether `pid` is a live process (a zombie, dead but not yet reaped, is not). */
export function isRunning(pid: number): boolean {
  if (!Number.isSafeInteger(pid) || pid <= 0) return false
  try {
    process.kill(pid, 0)
  } catch (error) {
    // EPERM: it exists, under another user
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false
  }
  return procStat(pid)?.state !== 'Z'
}

/** When `pid` started, in ms since the epoch (to the tick on Linux, the second elsewhere). */
export function startedAt(pid: number): number | undefined {
  const stat = procStat(pid)
  if (stat) return bootTime() + (stat.startTicks * 1000) / USER_HZ
  const started = ps(pid, 'lstart')
  const ms = started ? Date.parse(started) : NaN
  return Number.isNaN(ms) ? undefined : ms
}

/** The parent of `pid`, if it can be found. */
export function parentOf(pid: number): number | undefined {
  const stat = procStat(pid)
  if (stat) return stat.ppid
  const ppid = Number(ps(pid, 'ppid'))
  return Number.isSafeInteger(ppid) && ppid > 0 ? ppid : undefined
}

type ProcStat = { state: string; ppid: number; startTicks: number }

/** /proc/<pid>/stat: `pid (comm) state ppid … starttime` (starttime is field 22). */
function procStat(pid: number): ProcStat | undefined {
  if (process.platform !== 'linux') return undefined
  let text: string
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'utf8')
  } catch {
    return undefined
  }
  // the command name may hold spaces and parentheses: the fields start after the last ')'
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ')
  return { state: fields[0], ppid: Number(fields[1]), startTicks: Number(fields[19]) }
}

let boot: number | undefined
function bootTime(): number {
  boot ??= Number(/^btime (\d+)$/m.exec(readFileSync('/proc/stat', 'utf8'))?.[1] ?? 0) * 1000
  return boot
}

/** One column of `ps` for one process (macOS, the BSDs); undefined where there is no `ps`. */
function ps(pid: number, column: 'lstart' | 'ppid'): string | undefined {
  if (process.platform === 'win32' || !Number.isSafeInteger(pid) || pid <= 0) return undefined
  // child_process is loaded only here, off the start-up path
  const { execFileSync } = createRequire(import.meta.url)(
    'node:child_process',
  ) as typeof import('node:child_process')
  try {
    const out = execFileSync('ps', ['-o', `${column}=`, '-p', String(pid)], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
      env: { ...process.env, LC_ALL: 'C' },
    })
    return out.trim() || undefined
  } catch {
    return undefined
  }
}

/**
 * The parent this process started under, noted when this module loads (the command imports it
 * first): `process.ppid` is read on first use, and once the parent has gone it names whoever
 * adopted the orphan instead.
 */
const STARTED_UNDER = process.ppid

/** How often the parent (and npm's chain) is looked at. */
const PARENT_POLL_MS = 500

/** A process and the parent it started under. */
export type Link = [child: number, parent: number]

/**
 * Whether `child` is still `parent`'s. On Linux, whether the child's parent changed (it was
 * adopted), which a reused pid cannot hide; elsewhere, whether the parent runs.
 */
function linked([child, parent]: Link): boolean {
  return process.platform === 'linux' ? parentOf(child) === parent : isRunning(parent)
}

/** Calls `onGone` once `stillThere` says no (asked every PARENT_POLL_MS); the result stops it. */
function pollUntilGone(stillThere: () => boolean, onGone: () => void): () => void {
  const timer = setInterval(() => {
    if (stillThere()) return
    clearInterval(timer)
    onGone()
  }, PARENT_POLL_MS)
  timer.unref()
  return () => clearInterval(timer)
}

/**
 * Calls `onGone` when the parent this process started under (a test runner, a kit, a shell,
 * npm) has gone, SIGKILL included; `link` names another process and its parent instead.
 * Started as a container's first process (no parent), it watches nothing.
 */
export function watchParent(
  onGone: () => void,
  link: Link = [process.pid, STARTED_UNDER],
): () => void {
  if (link[1] < 1) return () => {}
  return pollUntilGone(() => linked(link), onGone)
}

/**
 * Started through npm (`npx card-sandbox`, `npm start`: npm sets npm_lifecycle_event), the
 * command runs as npm → `sh -c` → node, and `npx card-sandbox & … kill $!` signals npm alone:
 * its shell dies with it or not, and this process lived on (a sandbox holding its port, `listen`
 * the tenant's webhook URL). Calls `onGone` when the parent or grandparent it started under has
 * gone. Not when started directly, where `kill $!` reaches it and `nohup node … &` keeps its
 * meaning.
 */
export function watchLauncher(env: NodeJS.ProcessEnv, onGone: () => void): () => void {
  if (env.npm_lifecycle_event === undefined || process.platform === 'win32') return () => {}
  const parent = STARTED_UNDER
  const grandparent = parentOf(parent)
  const chain: Link[] = [[process.pid, parent]]
  if (grandparent !== undefined && grandparent > 1) chain.push([parent, grandparent])
  // npm never runs a command as init's child: adopted by init, it has gone already
  return pollUntilGone(() => parent > 1 && chain.every(linked), onGone)
}

/**
 * Calls `onEnd` once stdin reaches its end, when stdin is a pipe or a socket: a parent that
 * spawned this process with a stdin pipe and holds its other end (a kit) closes it, or its
 * system does when it dies. A terminal, /dev/null (which ends at once) or a file is not watched.
 * What arrives on it is read and dropped, never kept. `input` names another file descriptor and
 * its stream instead.
 */
export function watchStdinEnd(
  onEnd: () => void,
  input?: { fd: number; stream: NodeJS.ReadableStream },
): void {
  let stdin
  try {
    stdin = fstatSync(input?.fd ?? 0)
  } catch {
    return
  }
  if (!stdin.isFIFO() && !stdin.isSocket()) return
  const stream = input?.stream ?? process.stdin
  let ended = false
  const end = () => {
    if (ended) return
    ended = true
    onEnd()
  }
  stream.on('data', () => {})
  stream.once('end', end)
  stream.once('close', end)
  // a socket reset by a peer that died: its end too
  stream.once('error', end)
}
