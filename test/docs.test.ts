/**
 * The README and docs/ hold together: every relative link and #anchor resolves, no page names a
 * tracker number, the README stays a newcomer's page, and the kit test it shows is the one the
 * example project runs.
 */
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { remark } from 'remark'
import remarkValidateLinks from 'remark-validate-links'
import { engine } from 'unified-engine'
import { describe, expect, it } from 'vitest'
import { BANK_NAMES, PHONE_COUNTRY_CODES } from '../src/db/values.js'
import { tempDir } from './temp-dir.js'

const ROOT = fileURLToPath(new URL('..', import.meta.url))
const read = (path: string) => readFileSync(ROOT + path, 'utf8')
const PAGES = [
  'README.md',
  'CHANGELOG.md',
  'ARCHITECTURE.md',
  'bench/HISTORY.md',
  'examples/wallet-backend/README.md',
  'examples/python-wallet-backend/README.md',
  'python/README.md',
  'examples/php-wallet-backend/README.md',
  'php/README.md',
  ...readdirSync(ROOT + 'docs')
    .filter((name) => name.endsWith('.md'))
    .map((name) => `docs/${name}`),
]

/** remark-validate-links over the pages as one set, so anchors in other files are checked too. */
async function brokenLinks(files: string[], cwd = ROOT): Promise<string[]> {
  const context = await new Promise<{ files: { path: string; messages: any[] }[] }>(
    (resolve, reject) =>
      engine(
        {
          processor: remark(),
          cwd,
          files,
          // a plugin of the engine, not of the processor: only so is it handed the file set, which
          // checks headings in the other pages (its types do not see the engine's second argument)
          plugins: [[remarkValidateLinks as any, { repository: false }]],
          // no configuration files, no output: the messages are read below
          detectConfig: false,
          detectIgnore: false,
          output: false,
          out: false,
          quiet: true,
          reporter: () => '',
        },
        (error, _code, context) => (error ? reject(error) : resolve(context as any)),
      ),
  )
  return context.files.flatMap((file) =>
    file.messages.map((message) => `${file.path}:${message.line}: ${message.reason}`),
  )
}

describe('the README and docs/', () => {
  it('link only to files and headings that exist', async () => {
    expect(await brokenLinks(PAGES)).toEqual([])
  }, 60_000)

  it('would catch a missing file, a missing heading in another page, and one in the same page', async () => {
    const dir = tempDir('card-sandbox-links-')
    mkdirSync(`${dir}/docs`)
    writeFileSync(`${dir}/docs/a.md`, '# A\n\n## Set-up\n')
    writeFileSync(
      `${dir}/README.md`,
      '# R\n\n[ok](docs/a.md#set-up) [file](docs/b.md) [there](docs/a.md#tour) [here](#nope)\n',
    )
    const broken = await brokenLinks(['README.md', 'docs/a.md'], dir)
    expect(broken).toHaveLength(3)
    expect(broken.join('\n')).toMatch(/docs\/b\.md/)
    expect(broken.join('\n')).toMatch(/#tour/)
    expect(broken.join('\n')).toMatch(/#nope/)
  }, 60_000)

  it('name no tracker number ("issue 16"): they say what the behaviour is', () => {
    const found = PAGES.flatMap((page) =>
      read(page)
        .split('\n')
        .flatMap((line, i) =>
          /\bissues?\s+#?\d+/i.test(line) ? [`${page}:${i + 1}: ${line.trim()}`] : [],
        ),
    )
    expect(found).toEqual([])
  })

  it('list the closed values the schema holds, in its order (docs/api.md, "Closed lists")', () => {
    const rows = read('docs/api.md').split('\n')
    const listed = (field: string) => {
      const row = rows.find((line) => line.startsWith(`| ${field} `))
      expect(row, field).toBeDefined()
      return [...row!.split('|')[2].matchAll(/`([^`]+)`/g)].map((match) => match[1])
    }
    expect(listed('card-to-bank `bank_name`')).toEqual([...BANK_NAMES])
    expect(listed('verify phone `country_code`')).toEqual([...PHONE_COUNTRY_CODES])
  })

  it('keep the README to a newcomer’s page: at most 300 lines and 20 KB', () => {
    const readme = readFileSync(ROOT + 'README.md')
    expect(readme.toString('utf8').split('\n').length).toBeLessThanOrEqual(300)
    expect(readme.byteLength).toBeLessThanOrEqual(20 * 1024)
  })

  it('show the kit test the example project runs, as it runs there', () => {
    const example = read('examples/wallet-backend/test/readme-kit.test.ts')
    const shown = example.slice(example.indexOf('\n') + 1) // after its header comment
    for (const page of ['README.md', 'docs/testing.md']) {
      const block = /```ts\n\/\/ test\/cards\.test\.ts\n([\s\S]*?)```/.exec(read(page))
      expect(block, `${page} shows no "// test/cards.test.ts" block`).not.toBeNull()
      expect(block![1], page).toBe(shown)
    }
  })

  it('show the Python first test the Python example runs, as it runs there', () => {
    const example = read('examples/python-wallet-backend/tests/test_first.py')
    for (const page of ['docs/python.md', 'python/README.md']) {
      const block = /```python\n(# tests\/test_first\.py\n[\s\S]*?)```/.exec(read(page))
      expect(block, `${page} shows no "# tests/test_first.py" block`).not.toBeNull()
      expect(block![1], page).toBe(example)
    }
  })
})
