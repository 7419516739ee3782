#!/usr/bin/env bash
# The PHP kit (php/, docs/php.md) as CI checks it, with Debian's php-cli, php-curl, phpunit and
# composer, and nothing fetched from a PHP package repository (Packagist is disabled everywhere,
# COMPOSER_DISABLE_NETWORK is set but for the git clone of the vcs check, and HTTP goes to a proxy
# that is not there): the kit installed into a fresh project both ways the docs show
# (a Composer `path` repository to php/, and a `vcs` repository with a file:// URL), the docs'
# first test run in each, then the kit's own PHPUnit suite and the example's, against this
# repository's build (dist/, which `npm ci` made). `.ci/run` runs it.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
# the repository does not link itself into node_modules/.bin: the kit is told where the CLI is
export CARD_SANDBOX_COMMAND="node $ROOT/dist/bin/card-sandbox.js"
export COMPOSER_DISABLE_NETWORK=1 COMPOSER_NO_INTERACTION=1
# composer, with its HTTP sent to a proxy that is not there
offline_composer() {
  local trap=http://127.0.0.1:9
  http_proxy=$trap https_proxy=$trap HTTP_PROXY=$trap HTTPS_PROXY=$trap composer "$@"
}
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
# no user configuration (a mirror, a token) applies, and no cache outlives the check
export COMPOSER_HOME="$TMP/composer-home" COMPOSER_CACHE_DIR="$TMP/composer-cache"
VERSION=$(php -r 'echo json_decode(file_get_contents("php/composer.json"), true)["version"];')

# A project requiring the kit from one repository, running the docs' first test through the
# kit's bootstrap as installed (a symlink for `path`, a copy for `vcs`).
try_project() {
  local name=$1 repository=$2 project="$TMP/$1" network=${3:-1}
  mkdir -p "$project/tests"
  cat >"$project/composer.json" <<JSON
{
  "require-dev": { "card-sandbox/card-sandbox": "$VERSION" },
  "repositories": [$repository, { "packagist.org": false }]
}
JSON
  cat >"$project/phpunit.xml" <<'XML'
<phpunit bootstrap="vendor/card-sandbox/card-sandbox/bootstrap.php">
  <testsuites><testsuite name="first"><directory>tests</directory></testsuite></testsuites>
</phpunit>
XML
  cp examples/php-wallet-backend/tests/CardsTest.php "$project/tests/"
  (cd "$project" && COMPOSER_DISABLE_NETWORK=$network offline_composer install --quiet && phpunit >"$project/out.txt" 2>&1) ||
    { cat "$project/out.txt" 2>/dev/null; echo "php: the kit installed through a $name repository failed"; exit 1; }
  echo "ok: the kit installed through a $name repository ran the docs' first test"
}

try_project path "{ \"type\": \"path\", \"url\": \"$ROOT/php\" }"

# Composer's vcs repository wants composer.json at the repository's top, and the kit lives in a
# folder: a git repository of its own is made from php/ (its files as they are, tagged with the
# version) and given by file:// URL, as a team would push php/ to a repository of its own.
mkdir "$TMP/kit-git"
git -C php ls-files -z --cached --others --exclude-standard | tar -C php --null -T - -cf - | tar -C "$TMP/kit-git" -xf -
(cd "$TMP/kit-git" && git init --quiet -b main && git add -A &&
  git -c user.name=ci -c user.email=ci@localhost commit --quiet -m "card-sandbox PHP kit $VERSION" && git tag "v$VERSION")
# (Composer's network switch stops git too, even for file://: only the proxy guards this one)
try_project vcs "{ \"type\": \"vcs\", \"url\": \"file://$TMP/kit-git\" }" 0

(cd php && offline_composer install --quiet && phpunit)
(cd examples/php-wallet-backend && offline_composer install --quiet && phpunit)
