// The TypeScript examples of README.md and docs/*.md, type-checked (strict) as a reader would
// paste them into a project that has card-sandbox installed: `npm run test:pack` runs this against
// the packed package (scripts/check-pack.mjs); test/scripts/doc-examples.test.ts tests it.
//
// The convention the pages follow:
// - every ```ts (or ```typescript) block of a page is compiled with the page's other blocks as one
//   module: the page's prelude first, then the blocks in their order, so that a block sees what
//   the blocks before it declared;
// - the prelude is an HTML comment, `<!-- ts-prelude` … `-->`, whose inner lines are TypeScript:
//   what the examples assume (`declare const cardReference: string`, an import);
// - a block is left out when the line right before its opening fence (blank lines between
//   allowed: Prettier puts one there) is `<!-- ts-check: skip -->` (a fragment of a configuration
//   file, a block that is not code on its own);
// - a block that declares a name the prelude or an earlier block already declared (each block a
//   whole test file, say, with its own imports and its own `const sandbox`) gets a scope of its
//   own: its imports stay at the top (one that repeats an earlier import is dropped), the rest of
//   it goes inside `{ … }`. It still sees what came before it; what it declares stays its own.
//
// An error is reported as `<page>:<line in the markdown>: <message>`.
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import ts from 'typescript'

const SKIP = '<!-- ts-check: skip -->'
const PRELUDE_START = '<!-- ts-prelude'
const FENCE = /^(\s*)(`{3,}|~{3,})\s*([\w-]*)/

/**
 * A page's prelude and its TypeScript blocks, each line with its line number in the markdown
 * (1-based). `skipped` holds the opening-fence lines of the blocks left out.
 */
export function readPage(markdown) {
  const lines = markdown.split(/\r?\n/)
  const prelude = []
  const blocks = []
  const skipped = []
  for (let i = 0; i < lines.length; i++) {
    const open = FENCE.exec(lines[i])
    if (open) {
      const [, indent, fence, lang] = open
      const body = []
      let j = i + 1
      for (; j < lines.length; j++) {
        const close = lines[j].trim()
        if (close.startsWith(fence[0].repeat(fence.length)) && /^(`+|~+)$/.test(close)) break
        // a block indented under a list item: its lines lose that indentation
        const text = lines[j].startsWith(indent) ? lines[j].slice(indent.length) : lines[j]
        body.push({ text, line: j + 1 })
      }
      if (lang === 'ts' || lang === 'typescript') {
        // the marker, on the line before the fence or with blank lines between (Prettier puts one)
        let before = i - 1
        while (before >= 0 && !lines[before].trim()) before--
        if (before >= 0 && lines[before].trim() === SKIP) skipped.push(i + 1)
        else blocks.push({ open: i + 1, close: Math.min(j, lines.length - 1) + 1, lines: body })
      }
      i = j
      continue
    }
    // a line that starts the comment (one that only names it, in a sentence, is no prelude)
    if (!lines[i].trimStart().startsWith(PRELUDE_START)) continue
    const start = lines[i].indexOf(PRELUDE_START)
    for (let j = i; j < lines.length; j++) {
      let text = j === i ? lines[j].slice(start + PRELUDE_START.length) : lines[j]
      const end = text.indexOf('-->')
      if (end !== -1) text = text.slice(0, end)
      if ((j !== i && end === -1) || text.trim()) prelude.push({ text, line: j + 1 })
      if (end !== -1) {
        i = j
        break
      }
    }
  }
  return { prelude, blocks, skipped }
}

/** The names a piece of code declares at its top level, and its imports' bindings. */
function topLevel(code) {
  const file = ts.createSourceFile('block.ts', code, ts.ScriptTarget.ES2022, true, ts.ScriptKind.TS)
  const names = new Set()
  const imports = []
  const addBinding = (name) => {
    if (ts.isIdentifier(name)) return names.add(name.text)
    for (const element of name.elements)
      if (!ts.isOmittedExpression(element)) addBinding(element.name)
  }
  for (const statement of file.statements) {
    if (ts.isImportDeclaration(statement)) {
      imports.push(importOf(file, statement))
    } else if (ts.isVariableStatement(statement)) {
      for (const declaration of statement.declarationList.declarations) addBinding(declaration.name)
    } else if (
      (ts.isFunctionDeclaration(statement) ||
        ts.isClassDeclaration(statement) ||
        ts.isEnumDeclaration(statement) ||
        ts.isInterfaceDeclaration(statement) ||
        ts.isTypeAliasDeclaration(statement) ||
        ts.isModuleDeclaration(statement)) &&
      statement.name &&
      ts.isIdentifier(statement.name)
    ) {
      names.add(statement.name.text)
    }
  }
  return { names, imports }
}

/** An import declaration: its module, its bindings, and the lines it spans (0-based). */
function importOf(file, statement) {
  const from = statement.moduleSpecifier.text
  const clause = statement.importClause
  const typeOnly = Boolean(clause?.isTypeOnly)
  const bindings = []
  if (clause?.name) bindings.push({ local: clause.name.text, imported: 'default', typeOnly })
  const named = clause?.namedBindings
  if (named && ts.isNamespaceImport(named))
    bindings.push({ local: named.name.text, imported: '*', typeOnly })
  if (named && ts.isNamedImports(named)) {
    for (const element of named.elements) {
      bindings.push({
        local: element.name.text,
        imported: (element.propertyName ?? element.name).text,
        typeOnly: typeOnly || element.isTypeOnly,
      })
    }
  }
  return {
    from,
    bindings,
    first: file.getLineAndCharacterOfPosition(statement.getStart(file)).line,
    last: file.getLineAndCharacterOfPosition(statement.getEnd()).line,
  }
}

/** An import of some bindings of a module, in one line. */
function importLine(from, bindings) {
  const name = (b) => (b.imported === b.local ? b.local : `${b.imported} as ${b.local}`)
  const parts = []
  const byDefault = bindings.find((b) => b.imported === 'default')
  if (byDefault) parts.push(byDefault.local)
  const namespace = bindings.find((b) => b.imported === '*')
  if (namespace) parts.push(`* as ${namespace.local}`)
  const named = bindings.filter((b) => b.imported !== 'default' && b.imported !== '*')
  if (named.length)
    parts.push(`{ ${named.map((b) => (b.typeOnly ? 'type ' : '') + name(b)).join(', ')} }`)
  const typeOnly = bindings.every((b) => b.typeOnly) && !named.length
  return `import ${typeOnly ? 'type ' : ''}${parts.join(', ')} from ${JSON.stringify(from)}`
}

/**
 * The module a page compiles to: its text, and for each of its lines the markdown line it came
 * from (null for a line the checker added).
 */
export function pageModule(markdown) {
  const { prelude, blocks, skipped } = readPage(markdown)
  const out = []
  const emit = (text, line) => out.push({ text, line })
  // what the module declares at its top level so far: a name → how (an import, or 'declared')
  const declared = new Map()
  const importKey = (from, b) => `import ${from} ${b.imported}${b.typeOnly ? ' type' : ''}`
  const record = ({ names, imports }) => {
    for (const name of names) declared.set(name, 'declared')
    for (const { from, bindings } of imports)
      for (const b of bindings) declared.set(b.local, importKey(from, b))
  }

  for (const { text, line } of prelude) emit(text, line)
  record(topLevel(prelude.map((l) => l.text).join('\n')))

  for (const block of blocks) {
    const code = block.lines.map((l) => l.text).join('\n')
    const { names, imports } = topLevel(code)
    const clashes =
      [...names].some((name) => declared.has(name)) ||
      imports.some(({ bindings }) => bindings.some((b) => declared.has(b.local)))
    if (!clashes) {
      for (const { text, line } of block.lines) emit(text, line)
      record({ names, imports })
      continue
    }
    // its own scope: imports first (those an earlier import already made left out), then the rest
    const importLines = new Set()
    for (const { from, bindings, first, last } of imports) {
      for (let i = first; i <= last; i++) importLines.add(i)
      // the same binding again (or, type only, one already imported as a value)
      const repeated = (b) =>
        declared.get(b.local) === importKey(from, b) ||
        (b.typeOnly && declared.get(b.local) === importKey(from, { ...b, typeOnly: false }))
      const kept = bindings.filter((b) => !repeated(b))
      if (kept.length === bindings.length) {
        for (let i = first; i <= last; i++) emit(block.lines[i].text, block.lines[i].line)
      } else if (kept.length) {
        emit(importLine(from, kept), block.lines[first].line)
      }
      for (const b of kept) declared.set(b.local, importKey(from, b))
    }
    emit('{', block.open)
    block.lines.forEach(({ text, line }, i) => {
      if (!importLines.has(i)) emit(text, line)
    })
    emit('}', block.close)
  }
  // a module even when no block imports anything: pages do not share their names
  emit('export {}', null)
  return {
    text: out.map((l) => l.text).join('\n') + '\n',
    lines: out.map((l) => l.line),
    blocks: blocks.length,
    skipped,
  }
}

/** The compiler options of the check: strict, as the packed-package project compiles. */
export const COMPILER_OPTIONS = {
  module: 'NodeNext',
  moduleResolution: 'NodeNext',
  target: 'ES2022',
  lib: ['ES2023'],
  strict: true,
  noEmit: true,
  skipLibCheck: false,
  types: ['node'],
}

/**
 * Type-checks each page's module in `dir` (a project where what the examples import resolves):
 * `pages` are `{ name, markdown }`; answers the errors, `<page>:<line>: <message>`, and how many
 * blocks were compiled and skipped.
 */
export function checkPages(pages, { dir, options = COMPILER_OPTIONS }) {
  const outDir = join(dir, 'doc-examples')
  mkdirSync(outDir, { recursive: true })
  const modules = new Map()
  let compiled = 0
  let skipped = 0
  for (const { name, markdown } of pages) {
    const module = pageModule(markdown)
    compiled += module.blocks
    skipped += module.skipped.length
    if (!module.blocks) continue
    const file = join(outDir, `${name.replaceAll(/[\\/]/g, '-')}.ts`)
    writeFileSync(file, module.text)
    modules.set(ts.sys.resolvePath(file), { name, lines: module.lines })
  }
  const parsed = ts.convertCompilerOptionsFromJson(options, dir)
  if (parsed.errors.length) throw new Error(format(parsed.errors[0].messageText))
  const program = ts.createProgram([...modules.keys()], parsed.options)
  const errors = ts.getPreEmitDiagnostics(program).map((diagnostic) => {
    const message = `error TS${diagnostic.code}: ${format(diagnostic.messageText)}`
    if (!diagnostic.file) return message
    const { line } = diagnostic.file.getLineAndCharacterOfPosition(diagnostic.start ?? 0)
    const page = modules.get(ts.sys.resolvePath(diagnostic.file.fileName))
    if (!page) return `${diagnostic.file.fileName}:${line + 1}: ${message}`
    const mdLine = page.lines[line]
    return `${page.name}:${mdLine ?? '?'}: ${message}`
  })
  return { errors, compiled, skipped }
}

function format(messageText) {
  return ts.flattenDiagnosticMessageText(messageText, '\n  ')
}
