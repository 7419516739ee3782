/**
 * docs/ci.md's recipes and deploy/ci-image.json (scripts/ci-recipes.mjs): every generated block
 * of the page is the file rendered, so a recipe runs the image as CI does; a value edited by hand
 * in a block, or changed in the file without the page, is caught, naming the block.
 */
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import {
  CONFIG,
  PAGE,
  RECIPES,
  renderBlock,
  renderPage,
  type CiImage,
} from '../../scripts/ci-recipes.mjs'

const page = readFileSync(PAGE, 'utf8')
const config = JSON.parse(readFileSync(CONFIG, 'utf8')) as CiImage
const names = Object.keys(RECIPES)

describe('docs/ci.md', () => {
  it("holds each recipe's block as deploy/ci-image.json renders it", () => {
    expect(renderPage(page, config).differ).toEqual([])
    for (const name of names) expect(page).toContain(renderBlock(name, config))
  })

  it('is caught when a value in one block is edited by hand, naming that block', () => {
    const block = renderBlock('gitlab-services', config)
    const edited = page.replace(block, block.replace(`:${config.port}`, `:${config.port + 1}`))
    expect(edited).not.toBe(page)
    expect(renderPage(edited, config).differ).toEqual(['gitlab-services'])
  })

  it('is caught when the file changes without the page: each block that uses the value', () => {
    const retries = { ...config, health: { ...config.health, retries: config.health.retries + 1 } }
    expect(renderPage(page, retries).differ.sort()).toEqual(
      [
        'github-one-job',
        'github-services',
        'gitlab-services',
        'testcontainers-node',
        'testcontainers-python',
      ].sort(),
    )
  })

  it("renders every block from the file's values: image, port, each variable, health, gateway", () => {
    const other: CiImage = {
      image: 'example/sandbox:other',
      port: 4999,
      env: {
        ...config.env,
        CARD_SANDBOX_PUBLIC_URL: 'http://localhost:4999',
        CARD_SANDBOX_QUIRKS: 'off',
      },
      health: { path: '/__sandbox/health?x', interval: '7s', timeout: '9s', retries: 11 },
      hostGateway: { name: 'gw.internal', addHost: 'gw.internal:10.1.2.3' },
    }
    for (const name of names) {
      const block = renderBlock(name, other)
      // GitLab's service reaches the job by its network's alias, not by a gateway
      const gateway = name === 'gitlab-services' ? [] : ['gw.internal']
      for (const value of ['4999', 'CARD_SANDBOX_QUIRKS', 'off', ...gateway])
        expect(block, `${name}: ${value}`).toContain(value)
      for (const value of Object.keys(config.env))
        expect(block, `${name}: ${value}`).toContain(value)
      expect(block, name).not.toMatch(/4010|host\.docker\.internal|host-gateway/)
    }
    // the image by its tag where it is not the registry's copy; the health path where the
    // recipe polls it; the health wait's pace where the recipe sets it
    for (const name of ['github-one-job', 'testcontainers-node', 'testcontainers-python'])
      expect(renderBlock(name, other)).toContain('example/sandbox:other')
    for (const name of names) expect(renderBlock(name, other)).toContain('/__sandbox/health?x')
    expect(renderBlock('github-services', other)).toMatch(
      /--health-interval 7s --health-timeout 9s --health-retries 11/,
    )
    expect(renderBlock('github-one-job', other)).toMatch(/seq 1 11\).*--max-time 9 .*sleep 7/)
    expect(renderBlock('testcontainers-node', other)).toContain('.withStartupTimeout(77000)')
    expect(renderBlock('testcontainers-python', other)).toMatch(
      /range\(11\)[\s\S]*timeout=9[\s\S]*sleep\(7\)/,
    )
  })

  it('refuses a page without a block for a recipe', () => {
    const without = page.replace(renderBlock('testcontainers-python', config), '')
    expect(() => renderPage(without, config)).toThrow(/no block for: testcontainers-python/)
  })
})
