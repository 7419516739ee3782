// A sandbox from the built library (dist/, or another build's directory), with the options given
// as JSON, for `npm run bench -- --profile` and bench/ab.mjs: the bench-only `stages` switches of
// the sandbox factory are no command-line flag.
// usage: node bench/sandbox.mjs '{"stages":{"dueWork":false},"journal":false}' [dist directory]
import { resolve } from 'node:path'
import { pathToFileURL } from 'node:url'

const options = JSON.parse(process.argv[2] ?? '{}')
const dist = resolve(import.meta.dirname, '..', process.argv[3] ?? 'dist')
const { startSandbox } = await import(pathToFileURL(resolve(dist, 'index.js')).href)
const sandbox = await startSandbox({ port: 0, log: 'silent', ...options })
console.log(`listening ${sandbox.url}`)
process.on('SIGINT', () => void sandbox.close().then(() => process.exit(0)))
