/**
 * Mutation scores by file from one or more of Stryker's incremental files
 * (reports/mutation/*.incremental.json), as docs/mutation.md counts them: killed and timed out
 * over every mutant but those ignored or failing to compile (unreached ones count as survivors).
 * Several files are combined mutant by mutant (same file, place, mutator and replacement): a
 * mutant counts killed if any run killed it; where two runs saw different sources of one file,
 * the later run's mutants are taken. `--survivors` lists what is left, line by line.
 *
 *   node scripts/mutation-scores.mjs reports/mutation/domain-{money,cards,tenants}.incremental.json
 */
import { readFileSync } from 'node:fs'

const args = process.argv.slice(2)
const listSurvivors = args.includes('--survivors')
const reports = args.filter((arg) => arg !== '--survivors')
if (reports.length === 0) {
  console.error('usage: node scripts/mutation-scores.mjs [--survivors] FILE.incremental.json...')
  process.exit(2)
}

const killed = (mutant) => mutant.status === 'Killed' || mutant.status === 'Timeout'
const counted = (mutant) => !['Ignored', 'CompileError', 'RuntimeError'].includes(mutant.status)
const place = ({ location: { start, end }, mutatorName, replacement }) =>
  `${start.line}:${start.column}-${end.line}:${end.column} ${mutatorName} ${replacement}`

/** @type {Map<string, { source: string, mutants: Map<string, object> }>} */
const files = new Map()
for (const report of reports) {
  for (const [path, file] of Object.entries(JSON.parse(readFileSync(report, 'utf8')).files)) {
    const known = files.get(path)
    if (!known || known.source !== file.source) {
      files.set(path, {
        source: file.source,
        mutants: new Map(file.mutants.map((mutant) => [place(mutant), mutant])),
      })
      continue
    }
    for (const mutant of file.mutants) {
      const before = known.mutants.get(place(mutant))
      if (!before || (killed(mutant) && !killed(before))) known.mutants.set(place(mutant), mutant)
    }
  }
}

let allKilled = 0
let all = 0
for (const [path, file] of [...files].sort(([a], [b]) => a.localeCompare(b))) {
  const mutants = [...file.mutants.values()].filter(counted)
  const left = mutants.filter((mutant) => !killed(mutant))
  allKilled += mutants.length - left.length
  all += mutants.length
  const score = (100 * (mutants.length - left.length)) / mutants.length
  console.log(`${path}\t${score.toFixed(2)} %\t${mutants.length} mutants\t${left.length} left`)
  if (!listSurvivors) continue
  const lines = file.source.split('\n')
  for (const mutant of left.sort((a, b) => a.location.start.line - b.location.start.line)) {
    const { line, column } = mutant.location.start
    console.log(
      `  L${line}:${column} ${mutant.status} ${mutant.mutatorName}: ${lines[line - 1].trim()}`,
    )
  }
}
console.log(
  `all\t${((100 * allKilled) / all).toFixed(2)} %\t${all} mutants\t${all - allKilled} left`,
)
