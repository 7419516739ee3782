/**
 * The OpenAPI document, pinned: what GET /__sandbox/openapi.json serves is, byte for byte, the
 * committed copy (openapi-golden.json, written as test/golden.ts writes one). A change to a
 * route, a schema, a summary or an answer that the document shows must show in the copy too,
 * in the same commit: `CARD_SANDBOX_UPDATE_GOLDEN=1 npx vitest run
 * test/http/openapi-golden.test.ts` writes it again (only for a change meant to alter it).
 * The package's version is the one field left out of the copy: it moves with every release.
 */
import { describe, expect, it } from 'vitest'
import { PACKAGE_VERSION } from '../../src/lib/package-files.js'
import { expectGolden } from '../golden.js'
import { newSandbox } from '../helpers.js'

const GOLDEN = new URL('./openapi-golden.json', import.meta.url)
const VERSION_IN_COPY = '(the package version)'

describe('GET /__sandbox/openapi.json, against its committed copy', () => {
  it('serves byte for byte the committed document, with the package version in info', async () => {
    const sandbox = newSandbox()
    const res = await sandbox.app.request('/__sandbox/openapi.json')
    expect(res.status).toBe(200)
    const served = await res.text()
    const document = JSON.parse(served)
    // served compact, as JSON.stringify writes it: nothing in the text but the document
    expect(served).toBe(JSON.stringify(document))
    expect(document.info.version).toBe(PACKAGE_VERSION)
    document.info.version = VERSION_IN_COPY
    expectGolden(GOLDEN, document)
  })
})
