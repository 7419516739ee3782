// docs/ci.md's recipes, their generated parts: each block between `<!-- ci-recipe:NAME -->` and
// `<!-- /ci-recipe:NAME -->` is rendered here from deploy/ci-image.json, the one description of
// how CI runs the image (tag, port, environment, health wait, host gateway) that .ci/image reads
// too, so that a recipe cannot drift from what CI runs. The prose around the blocks is the page's.
//
//   node scripts/ci-recipes.mjs           rewrites the blocks of docs/ci.md
//   node scripts/ci-recipes.mjs --check   exits 1 naming each block that differs
import { readFileSync, writeFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

const ROOT = new URL('..', import.meta.url)
export const PAGE = fileURLToPath(new URL('docs/ci.md', ROOT))
export const CONFIG = fileURLToPath(new URL('deploy/ci-image.json', ROOT))

/** The image as a team's registry holds it, in the recipes (the registry is the team's own). */
const REGISTRY_IMAGE = 'registry.example.com/tools/card-sandbox'

const fence = '```'
const seconds = (duration) => {
  const match = /^(\d+)s$/.exec(duration)
  if (!match) throw new Error(`deploy/ci-image.json: "${duration}" is not a duration in seconds`)
  return Number(match[1])
}

/**
 * The health check command, run inside the container by its shell (the image has Node, no curl):
 * single quotes for the shell, a template literal for the URL, so that it sits in a double-quoted
 * option without escapes.
 */
const healthCmd = (c) =>
  `node -e 'fetch(\`http://127.0.0.1:${c.port}${c.health.path}\`)` +
  `.then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))'`

/** A shell loop on the runner: the health answering 200, as often and as long as the config says. */
const healthWait = (c, origin) =>
  `for i in $(seq 1 ${c.health.retries}); do ` +
  `curl -fsS --max-time ${seconds(c.health.timeout)} ${origin}${c.health.path} && exit 0; ` +
  `sleep ${seconds(c.health.interval)}; done; exit 1`

const yamlEnv = (env, indent) =>
  Object.entries(env)
    .map(([name, value]) => `${' '.repeat(indent)}${name}: '${value.replaceAll("'", "''")}'`)
    .join('\n')

const gatewayName = (c) => c.hostGateway.addHost.split(':')[0]

/** Each generated block: its name, its fence's language, its lines from the config. */
export const RECIPES = {
  'github-services': (c) => [
    'yaml',
    `# the test job: the pushed image as a service container, the kit attached to it
test:
  needs: image
  runs-on: ubuntu-latest
  services:
    card-sandbox:
      image: ${REGISTRY_IMAGE}:\${{ github.sha }}
      credentials:
        username: \${{ secrets.REGISTRY_USER }}
        password: \${{ secrets.REGISTRY_PASSWORD }}
      ports: ['${c.port}:${c.port}']
      env:
${yamlEnv(c.env, 8)}
      # the job waits for "healthy"; --add-host: the runner, as the container sees it
      options: >-
        --health-cmd "${healthCmd(c)}"
        --health-interval ${c.health.interval} --health-timeout ${c.health.timeout} --health-retries ${c.health.retries}
        --add-host ${c.hostGateway.addHost}
  env:
    CARD_SANDBOX_URL: http://localhost:${c.port}
    # PHP: the kit's webhook receivers bind every address, the sandbox is given the gateway's name
    CARD_SANDBOX_WEBHOOK_BIND: 0.0.0.0
    CARD_SANDBOX_WEBHOOK_HOST: ${gatewayName(c)}
  steps:
    - uses: actions/checkout@v4
    - uses: actions/setup-python@v5
      with: { python-version: '3.12' }
    - run: python -m pip install -r requirements-dev.txt
    # pytest: the same two settings as flags
    - run: >
        python -m pytest --card-sandbox-webhook-bind 0.0.0.0
        --card-sandbox-webhook-host ${gatewayName(c)}`,
  ],
  'github-one-job': (c) => [
    'yaml',
    `test:
  runs-on: ubuntu-latest
  env:
    CARD_SANDBOX_URL: http://localhost:${c.port}
  steps:
    - uses: actions/checkout@v4
    # this repository beside yours, at the version you test against
    - uses: actions/checkout@v4
      with: { repository: your-org/card-sandbox, ref: v0.1.0, path: card-sandbox }
    - run: docker build -t ${c.image} card-sandbox
    - run: >
        docker run -d --name card-sandbox -p ${c.port}:${c.port}
${Object.entries(c.env)
  .map(([name, value]) => `        -e ${name}=${value}`)
  .join('\n')}
        --add-host ${c.hostGateway.addHost}
        ${c.image}
    - name: wait for the sandbox's health
      run: ${healthWait(c, `http://localhost:${c.port}`)}
    - uses: actions/setup-python@v5
      with: { python-version: '3.12' }
    - run: python -m pip install -r requirements-dev.txt
    - run: >
        python -m pytest --card-sandbox-webhook-bind 0.0.0.0
        --card-sandbox-webhook-host ${gatewayName(c)}
    - if: always()
      run: docker logs card-sandbox; docker rm -f card-sandbox`,
  ],
  'gitlab-services': (c) => [
    'yaml',
    `test:
  image: python:3.12
  services:
    - name: ${REGISTRY_IMAGE}:$CI_COMMIT_SHA
      alias: card-sandbox
      variables:
${yamlEnv(c.env, 8)}
  variables:
    # the job's container and its services share one network: the job answers to "build"
    FF_NETWORK_PER_BUILD: 'true'
    CARD_SANDBOX_URL: http://card-sandbox:${c.port}
  script:
    - ${healthWait(c, `http://card-sandbox:${c.port}`).replace('exit 0', 'break').replace('; exit 1', '')}
    - curl -fsS http://card-sandbox:${c.port}${c.health.path}
    - python -m pip install -r requirements-dev.txt
    - python -m pytest --card-sandbox-webhook-bind 0.0.0.0 --card-sandbox-webhook-host build`,
  ],
  'testcontainers-node': (c) => [
    'js',
    `import { GenericContainer, Wait } from 'testcontainers'

const sandbox = await new GenericContainer('${c.image}')
  .withEnvironment({
${Object.entries(c.env)
  .map(([name, value]) => `    ${name}: '${value}',`)
  .join('\n')}
  })
  .withExposedPorts(${c.port})
  .withExtraHosts([{ host: '${gatewayName(c)}', ipAddress: '${c.hostGateway.addHost.split(':')[1]}' }])
  .withWaitStrategy(Wait.forHttp('${c.health.path}', ${c.port}).forStatusCode(200))
  .withStartupTimeout(${seconds(c.health.interval) * c.health.retries * 1000})
  .start()
process.env.CARD_SANDBOX_URL = \`http://\${sandbox.getHost()}:\${sandbox.getMappedPort(${c.port})}\`
// … the tests; at the end:
await sandbox.stop()`,
  ],
  'testcontainers-python': (c) => [
    'python',
    `# conftest.py: the container started before the card_sandbox plugin reads CARD_SANDBOX_URL
import os, time, urllib.request
import pytest
from testcontainers.core.container import DockerContainer

@pytest.hookimpl(tryfirst=True)
def pytest_configure(config):
    if hasattr(config, "workerinput"):
        return  # a pytest-xdist worker: the controller's container serves it
    container = (
        DockerContainer("${c.image}")
${Object.entries(c.env)
  .map(([name, value]) => `        .with_env("${name}", "${value}")`)
  .join('\n')}
        .with_exposed_ports(${c.port})
        .with_kwargs(extra_hosts={"${gatewayName(c)}": "${c.hostGateway.addHost.split(':')[1]}"})
    )
    container.start()
    url = f"http://{container.get_container_host_ip()}:{container.get_exposed_port(${c.port})}"
    for _ in range(${c.health.retries}):
        try:
            with urllib.request.urlopen(url + "${c.health.path}", timeout=${seconds(c.health.timeout)}) as answer:
                if answer.status == 200:
                    break
        except OSError:
            pass
        time.sleep(${seconds(c.health.interval)})
    else:
        container.stop()
        raise pytest.UsageError(f"card-sandbox not healthy at {url}")
    os.environ["CARD_SANDBOX_URL"] = url
    config.card_sandbox_container = container

def pytest_unconfigure(config):
    container = getattr(config, "card_sandbox_container", None)
    if container:
        container.stop()`,
  ],
}

const MARKER = /<!-- ci-recipe:([a-z-]+) -->\n([\s\S]*?)<!-- \/ci-recipe:\1 -->/g

/** The block of `name` as the config renders it: a fenced code block, with its markers. */
export function renderBlock(name, config) {
  const [language, text] = RECIPES[name](config)
  // blank lines around the fence, as prettier leaves a page (the docs are formatted with it)
  return `<!-- ci-recipe:${name} -->\n\n${fence}${language}\n${text}\n${fence}\n\n<!-- /ci-recipe:${name} -->`
}

/**
 * The page with each of its blocks rendered from `config`, and the names of the blocks that
 * differed; a recipe with no block on the page, or a block with no recipe, is an error.
 */
export function renderPage(page, config) {
  const seen = new Set()
  const differ = []
  const rendered = page.replace(MARKER, (block, name) => {
    if (!RECIPES[name]) throw new Error(`docs/ci.md: no recipe named ${name}`)
    seen.add(name)
    const fresh = renderBlock(name, config)
    if (fresh !== block) differ.push(name)
    return fresh
  })
  const missing = Object.keys(RECIPES).filter((name) => !seen.has(name))
  if (missing.length) throw new Error(`docs/ci.md has no block for: ${missing.join(', ')}`)
  return { rendered, differ }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const config = JSON.parse(readFileSync(CONFIG, 'utf8'))
  const { rendered, differ } = renderPage(readFileSync(PAGE, 'utf8'), config)
  if (process.argv.includes('--check')) {
    if (differ.length) {
      console.error(
        `docs/ci.md differs from deploy/ci-image.json in: ${differ.join(', ')}\n` +
          'run: node scripts/ci-recipes.mjs',
      )
      process.exit(1)
    }
    console.log(`docs/ci.md: ${Object.keys(RECIPES).length} blocks match deploy/ci-image.json`)
  } else {
    writeFileSync(PAGE, rendered)
    console.log(`docs/ci.md: ${differ.length ? `rewrote ${differ.join(', ')}` : 'unchanged'}`)
  }
}
