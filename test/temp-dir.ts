/**
 * A fresh directory under the system's temporary one, removed once the test that asked for it
 * has finished (after its afterEach hooks: a database they close is closed first). Call it inside
 * a test.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { onTestFinished } from 'vitest'

export function tempDir(prefix = 'card-sandbox-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix))
  onTestFinished(() => rmSync(dir, { recursive: true, force: true }))
  return dir
}
