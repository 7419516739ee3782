// A sandbox from the built library (dist/), with the options given as JSON, for `npm run bench
// -- --profile`: the bench-only `stages` switches of the sandbox factory are no command-line flag.
// usage: node bench/sandbox.mjs '{"stages":{"dueWork":false},"journal":false}'
import { startSandbox } from '../dist/index.js'

const options = JSON.parse(process.argv[2] ?? '{}')
const sandbox = await startSandbox({ port: 0, log: 'silent', ...options })
console.log(`listening ${sandbox.url}`)
process.on('SIGINT', () => void sandbox.close().then(() => process.exit(0)))
