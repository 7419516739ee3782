/**
 * The first, mechanical step of making the store and the domain async (issue 20,
 * ARCHITECTURE.md "Toward PostgreSQL"): every function of src/ and test/ that runs a SQLite
 * statement becomes async, then every function that calls one, to a fixed point, and each such
 * call is awaited. It prints what it cannot do (callbacks of array methods and of `expect`);
 * `tsc` and `npm run lint` (no-floating-promises) find the rest. It changes files in place: run
 * it on a clean work tree and read the diff.
 *
 *   npm install --no-save ts-morph@24 && node scripts/codemods/async-store.mjs
 *
 * A one-off: remove it once the store is async.
 */
import { resolve } from 'node:path'
import { Node, Project, SyntaxKind } from 'ts-morph'

const ROOT = resolve(import.meta.dirname, '../..')
const project = new Project({ tsConfigFilePath: `${ROOT}/tsconfig.json` })
const files = project.getSourceFiles().filter((file) => {
  const path = file.getFilePath()
  return (
    (path.startsWith(`${ROOT}/src/`) || path.startsWith(`${ROOT}/test/`)) &&
    !path.startsWith(`${ROOT}/src/db/`)
  )
})

const FUNCTIONS = [
  SyntaxKind.FunctionDeclaration,
  SyntaxKind.ArrowFunction,
  SyntaxKind.FunctionExpression,
  SyntaxKind.MethodDeclaration,
]
const isFunction = (node) => FUNCTIONS.includes(node.getKind())
const enclosingFunction = (node) => node.getFirstAncestor(isFunction)
const where = (node) =>
  `${node.getSourceFile().getFilePath().replace(`${ROOT}/`, '')}:${node.getStartLineNumber()}`

/** The functions made async here (nodes: positions move as the text changes). */
const madeAsync = new Set()
const byHand = new Set()

/** `x.get()`, `.all()`, `.run()`… on a prepared statement or the connection (the types say). */
const EXECUTES = new Set(['get', 'all', 'run', 'iterate', 'execute', 'exec', 'pragma'])
function runsStatement(call) {
  const callee = call.getExpression()
  if (!Node.isPropertyAccessExpression(callee) || !EXECUTES.has(callee.getName())) return false
  return /Prepare|Statement|Database|BetterSQLite3|SQLiteSession|SQLite(Select|Insert|Update|Delete)|SQLite.*Query/.test(
    callee.getExpression().getType().getText(),
  )
}

/** A statement's builder or a cache's maker (`prepared(db, key, () => …)`): run once, synchronously. */
function isBuilder(fn) {
  const parent = fn.getParent()
  return (
    Node.isCallExpression(parent) &&
    ['prepared', 'statement', 'perConnection'].includes(parent.getExpression().getText())
  )
}

function makeAsync(fn) {
  // a function async already (a webhook attempt) is called as it means to be, awaited or not
  if (fn.isAsync() || isBuilder(fn)) return
  madeAsync.add(fn)
  fn.setIsAsync(true)
  const returns = fn.getReturnTypeNode()
  if (returns && !returns.getText().startsWith('Promise<'))
    returns.replaceWithText(`Promise<${returns.getText()}>`)
}

const ARRAY_METHODS = ['map', 'filter', 'forEach', 'some', 'every', 'find', 'findIndex', 'reduce']

function awaitCall(call) {
  const fn = enclosingFunction(call)
  if (!fn) return void byHand.add(`a call outside any function ${where(call)}`)
  const caller = fn.getParent()
  if (Node.isCallExpression(caller)) {
    const callee = caller.getExpression()
    const name = Node.isPropertyAccessExpression(callee) ? callee.getName() : callee.getText()
    if (ARRAY_METHODS.includes(name)) byHand.add(`a callback of ${name} ${where(call)}`)
    if (name === 'expect') byHand.add(`a callback of expect ${where(call)}`)
  }
  const parent = call.getParent()
  const bare =
    Node.isExpressionStatement(parent) ||
    Node.isVariableDeclaration(parent) ||
    Node.isReturnStatement(parent)
  call.replaceWithText(bare ? `await ${call.getText()}` : `(await ${call.getText()})`)
  makeAsync(fn)
}

/** The function a call reaches, if it is one made async here (directly or through a factory). */
function calleeMadeAsync(call) {
  if (call.getExpression().getText() === 'atomically') return true
  const symbol = call.getExpression().getSymbol()
  const declaration =
    symbol?.getAliasedSymbol()?.getDeclarations()[0] ?? symbol?.getDeclarations()[0]
  if (!declaration) return false
  // an overloaded function: its implementation is the node made async
  if (Node.isFunctionDeclaration(declaration))
    return madeAsync.has(declaration.getImplementation() ?? declaration)
  if (isFunction(declaration)) return madeAsync.has(declaration)
  if (!Node.isVariableDeclaration(declaration)) return false
  const initializer = declaration.getInitializer()
  if (initializer && isFunction(initializer)) return madeAsync.has(initializer)
  // `const cardPages = pagesOf(cards)`: the function a factory made returns a promise now
  const signature = call.getExpression().getType().getCallSignatures()[0]
  return (
    initializer !== undefined &&
    Node.isCallExpression(initializer) &&
    signature !== undefined &&
    signature.getReturnType().getText().startsWith('Promise<')
  )
}

let seeds = 0
for (const file of files) {
  for (const call of file.getDescendantsOfKind(SyntaxKind.CallExpression)) {
    const fn =
      (runsStatement(call) || call.getExpression().getText() === 'atomically') &&
      enclosingFunction(call)
    if (!fn || fn.isAsync()) continue
    const parent = fn.getParent()
    const callee = Node.isCallExpression(parent) && parent.getExpression()
    if (
      callee &&
      Node.isPropertyAccessExpression(callee) &&
      ARRAY_METHODS.includes(callee.getName())
    )
      byHand.add(`a statement in a callback of ${callee.getName()} ${where(call)}`)
    else if (!isBuilder(fn)) {
      makeAsync(fn)
      seeds++
    }
  }
}
console.log(`${seeds} functions run statements`)

for (let round = 1; ; round++) {
  let awaited = 0
  for (const file of files) {
    for (const call of file.getDescendantsOfKind(SyntaxKind.CallExpression)) {
      if (call.wasForgotten() || Node.isAwaitExpression(call.getParent())) continue
      if (!calleeMadeAsync(call)) continue
      awaitCall(call)
      awaited++
    }
  }
  console.log(`round ${round}: ${awaited} calls awaited`)
  if (awaited === 0) break
}
if (byHand.size) console.log(`\nby hand:\n${[...byHand].join('\n')}`)
await project.save()
