import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { FLAGS, envName } from '../src/cli/flags.js'

const README = readFileSync(new URL('../README.md', import.meta.url), 'utf8')

describe('README', () => {
  it.each(FLAGS.map((f) => [f.name]))('documents --%s with its environment variable', (name) => {
    const row = README.split('\n').find((line) => line.startsWith(`| \`--${name} `))
    expect(row, `no table row for --${name}`).toBeDefined()
    expect(row).toContain(envName(name))
  })

  it('shows the two set-up commands and the test command', () => {
    expect(README).toContain('npm install')
    expect(README).toContain('npx card-sandbox --port 4010')
    expect(README).toContain('npm test')
  })
})
