/**
 * What `dist/bin/cli.cjs` runs (scripts/bundle.mjs): the command with this process's arguments.
 * Apart from main.ts so that importing the commands (a test, the help table) runs nothing.
 */
import { main } from './main.js'

// a promise, not a top-level await: the command is bundled as CommonJS (src/cli/bin.ts)
void main(process.argv.slice(2), process.env).then((code) => {
  process.exitCode = code
})
