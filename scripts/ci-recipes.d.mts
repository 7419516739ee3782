// The types of ci-recipes.mjs (plain JavaScript, run by hand and tested by
// test/scripts/ci-recipes.test.ts).

/** deploy/ci-image.json: how CI runs the image. */
export type CiImage = {
  image: string
  port: number
  env: Record<string, string>
  health: { path: string; interval: string; timeout: string; retries: number }
  hostGateway: { name: string; addHost: string }
}

export const PAGE: string
export const CONFIG: string
export const RECIPES: Record<string, (config: CiImage) => [language: string, text: string]>

/** The block of `name` as `config` renders it: a fenced code block between its markers. */
export function renderBlock(name: string, config: CiImage): string

/** The page with its blocks rendered from `config`, and the names of those that differed. */
export function renderPage(page: string, config: CiImage): { rendered: string; differ: string[] }
