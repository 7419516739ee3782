import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { FLAGS, envName } from '../src/cli/flags.js'

const README = readFileSync(new URL('../README.md', import.meta.url), 'utf8')
const FLAGS_PAGE = readFileSync(new URL('../docs/cli.md', import.meta.url), 'utf8')

describe('docs/cli.md', () => {
  it.each(FLAGS.map((f) => [f.name]))('documents --%s with its environment variable', (name) => {
    const row = FLAGS_PAGE.split('\n').find((line) => line.startsWith(`| \`--${name} `))
    expect(row, `no table row for --${name}`).toBeDefined()
    expect(row).toContain(envName(name))
  })
})

describe('README', () => {
  it('shows the two set-up commands and the test command', () => {
    expect(README).toContain('npm install')
    expect(README).toContain('npx card-sandbox --port 4010')
    expect(README).toContain('npm test')
  })
})
