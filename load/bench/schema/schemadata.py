#!/usr/bin/python3
"""The JSON Schema benchmark's data sets: five schemas (schemas/*.schema.json, draft 2020-12)
and, from a seed, their instances as JSON Lines, CBOR sequences and MessagePack sequences;
the differential test's instances (valid ones mutated); draft-7 versions of the schemas for
peers that know no later draft (valijson).

  schemadata.py bench --out DIR [--seed 42] [--count 1000] [--invalid 0.05] [--corpus DIR]
      DIR/NAME.jsonl, NAME.cbor-seq, NAME.msgpack-seq (the same records), NAME.schema.json
      (a copy), NAME.draft7.schema.json, NAME.verdicts (one 1/0 per record, python3-jsonschema's),
      manifest.json (counts, sizes, the draft-7 conversion's notes)
  schemadata.py differential --out DIR [--seed 7] [--count 3000] [--corpus DIR]
      DIR/NAME.diff.jsonl: valid instances and mutated ones (NAME.schema.json beside them)
  schemadata.py draft7 SCHEMA            prints the draft-7 version of one schema

NAME: package, workflow, geojson, twitter, citm. Everything is a pure function of the seed
(random.Random), the corpus files and this file. Needs python3-cbor2 and python3-msgpack for
the sequences and python3-jsonschema (4.10, Debian 12) for the verdicts: run with /usr/bin/python3.
"""
import argparse
import copy
import datetime
import json
import math
import os
import random
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
SCHEMAS = os.path.join(HERE, 'schemas')
DATASETS = ['package', 'workflow', 'geojson', 'twitter', 'citm']
DEFAULT_CORPUS = os.path.join(
    os.environ.get('ROSETTA_DATA_DIR', os.path.join(HERE, '..', '..', '..', '..', 'shared', 'data')), 'corpus')


def fingerprint(name):
    """What a data set is made from (this file and its schema): a changed one is made again."""
    import hashlib
    h = hashlib.sha256()
    for path in (os.path.abspath(__file__), os.path.join(SCHEMAS, name + '.schema.json')):
        with open(path, 'rb') as f:
            h.update(f.read())
    return h.hexdigest()[:16]


def load_schema(name):
    with open(os.path.join(SCHEMAS, name + '.schema.json'), encoding='utf-8') as f:
        return json.load(f)


def dumps(value):
    """One JSON Lines record: compact, UTF-8 as is."""
    return json.dumps(value, ensure_ascii=False, separators=(',', ':'), allow_nan=False)


# ---------------------------------------------------------------------------------------------
# Words and names the generators draw from.

WORDS = ('fast small tiny simple modern robust typed lazy async stream parser schema codec cache queue '
         'logger router server client config store state event graph tree list map set buffer pool '
         'worker task job build test lint bundle deploy release docs watch format check sync merge '
         'vector matrix color image audio video text json yaml toml csv http grpc socket auth token '
         'crypto hash random date time locale path file glob shell plugin preset core util helpers').split()
SYLLABLES = 'ka ro ze mi lu ta no vi sa pe qu ar el on ix um ba do fi gu'.split()
FIRST = 'Ada Alan Grace Linus Ken Dennis Barbara Edsger Donald Margaret Niklaus Frances John Radia Leslie'.split()
LAST = 'Lovelace Turing Hopper Torvalds Thompson Ritchie Liskov Dijkstra Knuth Hamilton Wirth Allen Backus Perlman Lamport'.split()
LICENSES = ['0BSD', 'Apache-2.0', 'BSD-2-Clause', 'BSD-3-Clause', 'GPL-2.0-only', 'GPL-3.0-only',
            'GPL-3.0-or-later', 'ISC', 'LGPL-2.1-or-later', 'MIT', 'MIT', 'MIT', 'MPL-2.0', 'Unlicense']


def pick(rng, seq):
    return seq[rng.randrange(len(seq))]


def sample(rng, seq, lo, hi):
    return rng.sample(list(seq), rng.randint(lo, min(hi, len(seq))))


def sentence(rng, lo=3, hi=12):
    words = [pick(rng, WORDS) for _ in range(rng.randint(lo, hi))]
    return (' '.join(words)).capitalize() + '.'


def ident(rng, parts=(1, 3)):
    return '-'.join(''.join(pick(rng, SYLLABLES) for _ in range(rng.randint(1, 3)))
                    for _ in range(rng.randint(*parts)))


def person_name(rng):
    return pick(rng, FIRST) + ' ' + pick(rng, LAST)


def email(rng, name):
    return name.lower().replace(' ', '.') + '@' + ident(rng, (1, 1)) + '.example'


def semver(rng):
    v = '%d.%d.%d' % (rng.randint(0, 12), rng.randint(0, 30), rng.randint(0, 50))
    r = rng.random()
    if r < 0.10:
        v += '-' + pick(rng, ['alpha', 'beta', 'rc', 'next', 'canary']) + '.' + str(rng.randint(0, 9))
    elif r < 0.12:
        v += '-0.' + str(rng.randint(1, 30))
    if rng.random() < 0.03:
        v += '+build.' + str(rng.randint(1, 999))
    return v


def version_range(rng):
    v = '%d.%d.%d' % (rng.randint(0, 9), rng.randint(0, 20), rng.randint(0, 30))
    return pick(rng, ['^' + v, '^' + v, '~' + v, v, '>=' + v, '>=%s <%d' % (v, rng.randint(10, 20)), '*', 'latest',
                      'workspace:*', 'npm:' + ident(rng, (1, 1)) + '@^' + v, '1.x || 2.x',
                      'git+https://git.example/' + ident(rng, (1, 1)) + '.git#v' + v])


# ---------------------------------------------------------------------------------------------
# (a) package manifests

def package_name(rng, scoped=None):
    base = ident(rng)
    if rng.random() < 0.1:
        base += pick(rng, ['.js', '_' + ident(rng, (1, 1)), '2'])
    if scoped if scoped is not None else rng.random() < 0.3:
        return '@' + ident(rng, (1, 1)) + '/' + base
    return base


DEP_POOL_SEED = 1234


def dep_pool():
    rng = random.Random(DEP_POOL_SEED)
    return sorted({package_name(rng) for _ in range(300)})


def person(rng):
    n = person_name(rng)
    r = rng.random()
    if r < 0.4:
        return '%s <%s> (https://%s.example)' % (n, email(rng, n), ident(rng, (1, 1)))
    p = {'name': n}
    if rng.random() < 0.7:
        p['email'] = email(rng, n)
    if rng.random() < 0.4:
        p['url'] = 'https://%s.example/~%s' % (ident(rng, (1, 1)), n.split()[0].lower())
    return p


def exports_map(rng):
    r = rng.random()
    if r < 0.3:
        return './dist/index.js'
    if r < 0.5:
        return {'import': './dist/index.mjs', 'require': './dist/index.cjs'}
    m = {'.': {'types': './dist/index.d.ts', 'import': './dist/index.mjs', 'require': './dist/index.cjs'},
         './package.json': './package.json'}
    for _ in range(rng.randint(0, 4)):
        sub = pick(rng, WORDS)
        m['./' + sub] = pick(rng, ['./dist/%s.js' % sub, {'node': './dist/%s.node.js' % sub,
                                                          'default': './dist/%s.js' % sub},
                                   ['./dist/%s.mjs' % sub, './dist/%s.js' % sub], None])
    if rng.random() < 0.3:
        m['./utils/*'] = {'default': './dist/utils/*.js'}
    return m


def scripts(rng):
    s = {}
    for key, cmds in (('build', ['tsc -p tsconfig.json', 'rollup -c', 'vite build', 'node build.mjs']),
                      ('test', ['jest --coverage', 'vitest run', 'mocha "test/**/*.spec.js"', 'node --test']),
                      ('lint', ['eslint . --ext .ts,.tsx', 'biome check .']),
                      ('start', ['node dist/index.js', 'vite']),
                      ('prepare', ['husky install', 'npm run build'])):
        if rng.random() < 0.7:
            s[key] = pick(rng, cmds)
    for key in sample(rng, ['test:unit', 'test:e2e', 'build:watch', 'pretest', 'postinstall', 'format', 'typecheck',
                            'release', 'docs', 'clean', 'bench', 'dev'], 0, 6):
        s[key] = pick(rng, ['rimraf dist', 'prettier --write .', 'tsc --noEmit', 'changeset publish', 'typedoc',
                            'node scripts/%s.js' % pick(rng, WORDS), 'npm run build -- --watch'])
    return s


def gen_package(rng, corpus, i, pool=None):
    pool = pool or dep_pool()
    pkg = {'name': package_name(rng), 'version': semver(rng)}
    private = rng.random() < 0.15
    if rng.random() < 0.9:
        pkg['description'] = sentence(rng)
    if rng.random() < 0.7:
        pkg['keywords'] = sample(rng, WORDS, 1, 8)
    if rng.random() < 0.6:
        pkg['homepage'] = 'https://%s.example/%s#readme' % (ident(rng, (1, 1)), pick(rng, WORDS))
    r = rng.random()
    if r < 0.35:
        pkg['bugs'] = 'https://git.example/%s/issues' % ident(rng, (1, 1))
    elif r < 0.6:
        pkg['bugs'] = {'url': 'https://git.example/%s/issues' % ident(rng, (1, 1))}
        if rng.random() < 0.5:
            pkg['bugs']['email'] = 'bugs@%s.example' % ident(rng, (1, 1))
    if not private or rng.random() < 0.3:
        r = rng.random()
        pkg['license'] = (pick(rng, LICENSES) if r < 0.85 else 'SEE LICENSE IN LICENSE.md' if r < 0.9 else
                          '(%s OR %s)' % (pick(rng, LICENSES), pick(rng, LICENSES)))
    if rng.random() < 0.8:
        pkg['author'] = person(rng)
    if rng.random() < 0.3:
        pkg['contributors'] = [person(rng) for _ in range(rng.randint(1, 4))]
    if rng.random() < 0.1:
        pkg['maintainers'] = [person(rng) for _ in range(rng.randint(1, 2))]
    r = rng.random()
    if r < 0.08:
        pkg['funding'] = 'https://fund.example/%s' % ident(rng, (1, 1))
    elif r < 0.14:
        pkg['funding'] = {'type': 'opencollective', 'url': 'https://fund.example/%s' % ident(rng, (1, 1))}
    elif r < 0.18:
        pkg['funding'] = ['https://fund.example/a', {'type': 'individual', 'url': 'https://fund.example/b'}]
    if rng.random() < 0.6:
        pkg['files'] = sample(rng, ['dist', 'lib', 'src', 'bin', 'README.md', 'LICENSE', 'types', '*.d.ts'], 1, 5)
    if rng.random() < 0.8:
        pkg['main'] = pick(rng, ['dist/index.js', 'lib/index.js', 'index.js', './dist/cjs/index.cjs'])
    if rng.random() < 0.3:
        pkg['module'] = 'dist/index.mjs'
    if rng.random() < 0.4:
        pkg['types'] = pick(rng, ['dist/index.d.ts', 'types/index.d.mts', 'index.d.cts'])
    if rng.random() < 0.5:
        pkg['type'] = pick(rng, ['module', 'commonjs'])
    if rng.random() < 0.4:
        pkg['exports'] = exports_map(rng)
    r = rng.random()
    if r < 0.1:
        pkg['bin'] = 'bin/cli.js'
    elif r < 0.2:
        pkg['bin'] = {ident(rng, (1, 2)): 'bin/%s.js' % pick(rng, WORDS) for _ in range(rng.randint(1, 3))}
    if rng.random() < 0.04:
        pkg['man'] = pick(rng, ['man/doc.1', ['man/a.1', 'man/b.5']])
    if rng.random() < 0.04:
        pkg['directories'] = {'lib': 'lib', 'test': 'test'}
    r = rng.random()
    user, repo = ident(rng, (1, 1)), ident(rng, (1, 2))
    if r < 0.3:
        pkg['repository'] = pick(rng, ['github:', 'gitlab:', '']) + user + '/' + repo
    elif r < 0.75:
        pkg['repository'] = {'type': 'git', 'url': 'git+https://git.example/%s/%s.git' % (user, repo)}
        if rng.random() < 0.3:
            pkg['repository']['directory'] = 'packages/' + repo
    if rng.random() < 0.85:
        pkg['scripts'] = scripts(rng)
    if rng.random() < 0.05:
        pkg['config'] = {'port': rng.randint(1024, 9999)}
    if rng.random() < 0.5:
        pkg['engines'] = {'node': pick(rng, ['>=18', '>=16.14', '^18 || ^20 || >=22'])}
        if rng.random() < 0.3:
            pkg['engines']['npm'] = '>=9'
    if rng.random() < 0.05:
        pkg['os'] = sample(rng, ['linux', 'darwin', '!win32', 'freebsd'], 1, 3)
    if rng.random() < 0.05:
        pkg['cpu'] = sample(rng, ['x64', 'arm64', '!ia32'], 1, 2)
    if private:
        pkg['private'] = True
        if rng.random() < 0.5:
            pkg['workspaces'] = pick(rng, [['packages/*'], ['packages/*', 'apps/*'],
                                           {'packages': ['packages/*'], 'nohoist': ['**/react-native']}])
    else:
        if rng.random() < 0.05:
            pkg['private'] = False
        if rng.random() < 0.15:
            pkg['publishConfig'] = {'access': pick(rng, ['public', 'restricted'])}
            if rng.random() < 0.3:
                pkg['publishConfig']['registry'] = 'https://registry.example/'
            if rng.random() < 0.2:
                pkg['publishConfig']['tag'] = pick(rng, ['next', 'beta', 'latest'])
            if rng.random() < 0.2:
                pkg['publishConfig']['provenance'] = True
    if rng.random() < 0.15:
        pkg['sideEffects'] = pick(rng, [False, ['*.css', './src/polyfill.js']])
    if rng.random() < 0.2:
        pkg['packageManager'] = pick(rng, ['pnpm@8.15.4', 'yarn@4.1.0', 'npm@10.5.0', 'bun@1.0.30'])
    for key, p, lo, hi in (('dependencies', 0.7, 1, 25), ('devDependencies', 0.6, 2, 40),
                           ('peerDependencies', 0.15, 1, 3), ('optionalDependencies', 0.05, 1, 2)):
        if rng.random() < p:
            pkg[key] = {d: version_range(rng) for d in sample(rng, pool, lo, hi)}
    if 'peerDependencies' in pkg and rng.random() < 0.4:
        pkg['peerDependenciesMeta'] = {d: {'optional': True} for d in list(pkg['peerDependencies'])[:1]}
    if 'dependencies' in pkg and rng.random() < 0.04:
        pkg['bundleDependencies'] = pick(rng, [True, list(pkg['dependencies'])[:2]])
    if rng.random() < 0.03:
        pkg['overrides'] = {pick(rng, pool): version_range(rng)}
    if rng.random() < 0.05:
        pkg['_id'] = pkg['name'] + '@' + pkg['version']
        pkg['_resolved'] = 'https://registry.example/%s/-/%s.tgz' % (pkg['name'], pkg['version'])
    if rng.random() < 0.03:
        pkg['x-' + pick(rng, WORDS)] = pick(rng, ['on', 3, True, {'a': 1}, ['x']])
    # Fields in a shuffled order, as written by hand.
    keys = list(pkg)
    head, tail = keys[:2], keys[2:]
    rng.shuffle(tail)
    return {k: pkg[k] for k in head + tail}


# ---------------------------------------------------------------------------------------------
# (b) CI workflows

JOB_IDS = ['build', 'test', 'lint', 'deploy', 'release', 'docs', 'e2e', 'package', 'coverage', 'publish', 'bench',
           'typecheck', 'security', 'nightly', 'integration', 'smoke', 'format', 'audit', '_internal', 'build-arm64']
ACTIONS = ['actions/checkout@v4', 'actions/setup-node@v4', 'actions/setup-python@v5', 'actions/cache@v4',
           'actions/upload-artifact@v4', 'actions/download-artifact@v4', 'docker/login-action@v3',
           'docker/build-push-action@v5', 'codecov/codecov-action@v4', 'github/codeql-action/init@v3',
           'softprops/action-gh-release@v2', 'peaceiris/actions-gh-pages@v3', 'actions/setup-go@v5']
COMMANDS = ['npm ci', 'npm test', 'npm run build', 'npm run lint', 'make -j4', 'cargo test --all', 'go test ./...',
            'pip install -r requirements.txt', 'pytest -q', './scripts/release.sh ${{ github.ref_name }}',
            'echo "sha=$(git rev-parse --short HEAD)" >> "$GITHUB_OUTPUT"', 'docker build -t app:${{ github.sha }} .',
            'npx playwright install --with-deps\nnpx playwright test', 'cmake -S . -B build\ncmake --build build -j2',
            'tar czf dist.tgz dist/', 'ls -la']
EXPRESSIONS = ["${{ github.event_name == 'push' }}", "${{ matrix.os }}", "${{ github.workflow }}-${{ github.ref }}",
               "${{ !cancelled() }}", "${{ matrix.experimental }}", "${{ fromJSON(needs.setup.outputs.matrix) }}"]


def env_map(rng):
    e = {}
    for k in sample(rng, ['NODE_VERSION', 'CI', 'RETRIES', 'GO111MODULE', 'FORCE_COLOR', 'RUST_BACKTRACE', 'TZ',
                          'PYTHONUNBUFFERED', 'REGISTRY', 'IMAGE_NAME', '_SECRET_REF'], 1, 4):
        e[k] = pick(rng, ['20', True, 3, 'on', 'UTC', '${{ secrets.TOKEN }}', 'ghcr.io', 1.5])
    return e


def gen_step(rng, first):
    step = {}
    if first:
        step['uses'] = 'actions/checkout@v4'
        if rng.random() < 0.4:
            step['with'] = {'fetch-depth': 0}
        return step
    if rng.random() < 0.6:
        step['name'] = sentence(rng, 2, 5).rstrip('.')
    if rng.random() < 0.1:
        step['id'] = pick(rng, ['meta', 'version', 'cache', 'build_step', 'tests'])
    r = rng.random()
    if r < 0.4:
        step['uses'] = pick(rng, ACTIONS + ['./.github/actions/setup', 'docker://alpine:3.19'])
        if rng.random() < 0.6:
            step['with'] = {k: pick(rng, ['20', '${{ matrix.node }}', 'npm', 'dist/', '3.12'] + (
                                [] if k in ('args', 'entrypoint') else [True, 0]))
                            for k in sample(rng, ['node-version', 'cache', 'path', 'key', 'python-version',
                                                  'fetch-depth', 'args', 'token', 'retention-days'], 1, 3)}
    else:
        step['run'] = pick(rng, COMMANDS)
        if rng.random() < 0.15:
            step['shell'] = pick(rng, ['bash', 'pwsh', 'python', 'bash -euo pipefail {0}'])
        if rng.random() < 0.15:
            step['working-directory'] = pick(rng, ['packages/core', 'web', './tools'])
    if rng.random() < 0.15:
        step['if'] = pick(rng, ["github.ref == 'refs/heads/main'", "${{ success() }}", 'always()', True])
    if rng.random() < 0.15:
        step['env'] = env_map(rng)
    if rng.random() < 0.05:
        step['continue-on-error'] = pick(rng, [True, '${{ matrix.experimental }}'])
    if rng.random() < 0.05:
        step['timeout-minutes'] = pick(rng, [5, 10, 2.5, 30])
    return step


def gen_job(rng, earlier):
    if rng.random() < 0.1:
        job = {'uses': pick(rng, ['./.github/workflows/reusable-build.yml',
                                  'octo-org/ci/.github/workflows/deploy.yaml@v2', './.github/workflows/test.yml'])}
        if rng.random() < 0.6:
            job['with'] = {'environment': pick(rng, ['staging', 'production']), 'dry-run': rng.random() < 0.5}
        if rng.random() < 0.6:
            job['secrets'] = pick(rng, ['inherit', {'token': '${{ secrets.DEPLOY_TOKEN }}'}])
    else:
        job = {}
        if rng.random() < 0.5:
            job['name'] = sentence(rng, 1, 4).rstrip('.')
        r = rng.random()
        job['runs-on'] = (pick(rng, ['ubuntu-latest', 'ubuntu-22.04', 'windows-latest', 'macos-14', '${{ matrix.os }}'])
                          if r < 0.8 else ['self-hosted', 'linux', pick(rng, ['x64', 'arm64'])] if r < 0.93 else
                          {'group': 'large-runners', 'labels': pick(rng, ['ubuntu-24.04-16core', ['linux', 'big']])})
        if rng.random() < 0.3:
            matrix = {'os': sample(rng, ['ubuntu-latest', 'windows-latest', 'macos-latest'], 1, 3),
                      'node': sample(rng, [18, 20, 22], 1, 3)}
            if rng.random() < 0.3:
                matrix['include'] = [{'os': 'ubuntu-latest', 'node': 23, 'experimental': True}]
            if rng.random() < 0.2:
                matrix['exclude'] = [{'os': 'windows-latest', 'node': 18}]
            job['strategy'] = {'matrix': matrix if rng.random() < 0.9 else "${{ fromJSON(needs.setup.outputs.matrix) }}"}
            if rng.random() < 0.5:
                job['strategy']['fail-fast'] = False
            if rng.random() < 0.3:
                job['strategy']['max-parallel'] = rng.randint(1, 8)
        if rng.random() < 0.5:
            job['timeout-minutes'] = pick(rng, [10, 15, 20, 30, 45, 60, 120])
        if rng.random() < 0.1:
            job['container'] = pick(rng, ['node:20-bookworm', {'image': 'ghcr.io/acme/builder:1.4',
                                                               'options': '--cpus 2',
                                                               'volumes': ['/tmp/cache:/cache']}])
        if rng.random() < 0.1:
            job['services'] = {'postgres': {'image': 'postgres:16', 'env': {'POSTGRES_PASSWORD': 'postgres'},
                                            'ports': [5432, '6379:6379'],
                                            'options': '--health-cmd pg_isready --health-interval 10s'}}
        if rng.random() < 0.1:
            job['outputs'] = {'version': '${{ steps.version.outputs.value }}'}
        if rng.random() < 0.1:
            job['environment'] = pick(rng, ['production', {'name': 'github-pages',
                                                           'url': '${{ steps.deploy.outputs.page_url }}'}])
        if rng.random() < 0.15:
            job['env'] = env_map(rng)
        if rng.random() < 0.08:
            job['defaults'] = {'run': {'shell': 'bash', 'working-directory': 'app'}}
        if rng.random() < 0.05:
            job['continue-on-error'] = True
        job['steps'] = [gen_step(rng, i == 0) for i in range(rng.randint(2, 10))]
    if earlier and rng.random() < 0.5:
        job['needs'] = pick(rng, earlier) if rng.random() < 0.5 else sample(rng, earlier, 1, 3)
    if rng.random() < 0.15:
        job['if'] = pick(rng, ["github.event_name == 'push'", "${{ !cancelled() }}", "startsWith(github.ref, 'refs/tags/')"])
    if rng.random() < 0.1:
        job['permissions'] = pick(rng, ['read-all', {'contents': 'write', 'id-token': 'write'}])
    if rng.random() < 0.05:
        job['concurrency'] = {'group': 'deploy-${{ github.ref }}', 'cancel-in-progress': True}
    return job


def gen_workflow(rng, corpus, i):
    wf = {}
    if rng.random() < 0.9:
        wf['name'] = pick(rng, ['CI', 'Release', 'Nightly', 'Docs', 'Lint', 'Deploy', 'CodeQL', 'Tests'])
    if rng.random() < 0.1:
        wf['run-name'] = 'Deploy to ${{ inputs.environment }} by @${{ github.actor }}'
    r = rng.random()
    if r < 0.15:
        wf['on'] = pick(rng, ['push', 'pull_request', 'workflow_dispatch'])
    elif r < 0.3:
        wf['on'] = sample(rng, ['push', 'pull_request', 'workflow_dispatch', 'merge_group', 'release'], 1, 3)
    else:
        on = {}
        if rng.random() < 0.8:
            on['push'] = pick(rng, [{'branches': ['main']}, {'branches': ['main', 'release/**'], 'paths-ignore': ['docs/**']},
                                    {'tags': ['v*']}, None])
        if rng.random() < 0.7:
            on['pull_request'] = pick(rng, [{'branches': ['main']}, None,
                                            {'types': ['opened', 'synchronize', 'reopened']},
                                            {'paths': ['src/**', 'package.json']}])
        if rng.random() < 0.2:
            on['schedule'] = [{'cron': pick(rng, ['0 3 * * 1', '30 5,17 * * *', '*/15 * * * *', '0 0 1 * MON'])}]
        if rng.random() < 0.3:
            inputs = {}
            for name in sample(rng, ['environment', 'debug', 'version', 'dry_run', 'level'], 1, 3):
                t = pick(rng, ['string', 'boolean', 'choice', 'environment', 'number'])
                inp = {'description': sentence(rng, 2, 6), 'type': t}
                if t == 'choice':
                    inp['options'] = sample(rng, ['staging', 'production', 'dev', 'qa'], 1, 4)
                if rng.random() < 0.5:
                    inp['required'] = rng.random() < 0.5
                if rng.random() < 0.4:
                    inp['default'] = {'boolean': False, 'number': 1}.get(t, 'staging')
                inputs[name] = inp
            on['workflow_dispatch'] = {'inputs': inputs} if rng.random() < 0.8 else None
        if rng.random() < 0.1:
            on['release'] = {'types': ['published']}
        if not on:
            on['workflow_dispatch'] = None
        wf['on'] = on
    if rng.random() < 0.3:
        wf['env'] = env_map(rng)
    if rng.random() < 0.4:
        wf['permissions'] = pick(rng, ['read-all', {'contents': 'read'}, {'contents': 'read', 'pull-requests': 'write'},
                                       {'packages': 'write', 'id-token': 'write', 'attestations': 'write'}])
    if rng.random() < 0.3:
        wf['concurrency'] = pick(rng, ['${{ github.workflow }}-${{ github.ref }}',
                                       {'group': '${{ github.workflow }}-${{ github.ref }}', 'cancel-in-progress': True},
                                       {'group': 'pages', 'cancel-in-progress': "${{ github.event_name == 'pull_request' }}"}])
    if rng.random() < 0.1:
        wf['defaults'] = {'run': {'shell': 'bash'}}
    jobs = {}
    for jid in sample(rng, JOB_IDS, 1, 6):
        jobs[jid] = gen_job(rng, list(jobs))
    wf['jobs'] = jobs
    return wf


# ---------------------------------------------------------------------------------------------
# (c) GeoJSON from canada.json

def canada_rings(corpus):
    with open(os.path.join(corpus, 'canada.json'), encoding='utf-8') as f:
        doc = json.load(f)
    return doc['features'][0]['geometry']['coordinates']


def gen_geojson_all(rng, corpus, count, max_points=1500):
    rings = canada_rings(corpus)
    order = list(range(len(rings)))
    state = {'next': 0}

    def ring():
        if state['next'] % len(order) == 0:
            rng.shuffle(order)
        idx = order[state['next'] % len(order)]
        state['next'] += 1
        r = rings[idx]
        if len(r) > max_points:  # a long ring: a closed piece of it
            start = rng.randrange(len(r) - max_points)
            piece = r[start:start + rng.randint(min(50, max_points // 2), max_points - 1)]
            r = piece + [piece[0]]
        return idx, r

    def chunk():
        idx, r = ring()
        n = rng.randint(2, min(len(r), 400, max_points))
        s = rng.randrange(len(r) - n + 1)
        return idx, r[s:s + n]

    def bbox(points):
        xs = [p[0] for p in points]
        ys = [p[1] for p in points]
        return [min(xs), min(ys), max(xs), max(ys)]

    def geometry(kind):
        if kind == 'Point':
            idx, r = ring()
            return idx, {'type': 'Point', 'coordinates': pick(rng, r)}
        if kind == 'MultiPoint':
            idx, r = chunk()
            return idx, {'type': 'MultiPoint', 'coordinates': r[:rng.randint(1, 30)]}
        if kind == 'LineString':
            idx, r = chunk()
            return idx, {'type': 'LineString', 'coordinates': r}
        if kind == 'MultiLineString':
            parts = [chunk() for _ in range(rng.randint(1, 4))]
            return parts[0][0], {'type': 'MultiLineString', 'coordinates': [p for _, p in parts]}
        if kind == 'Polygon':
            idx, r = ring()
            return idx, {'type': 'Polygon', 'coordinates': [r]}
        if kind == 'MultiPolygon':
            parts = [ring() for _ in range(rng.randint(2, 4))]
            return parts[0][0], {'type': 'MultiPolygon', 'coordinates': [[p] for _, p in parts]}
        parts = [geometry(pick(rng, ['Point', 'LineString', 'Polygon', 'MultiPoint'])) for _ in range(rng.randint(2, 4))]
        return parts[0][0], {'type': 'GeometryCollection', 'geometries': [g for _, g in parts]}

    kinds = ['Polygon'] * 6 + ['LineString'] * 3 + ['Point'] * 2 + ['MultiPoint', 'MultiLineString', 'MultiPolygon',
                                                                    'GeometryCollection']

    def feature(n):
        idx, g = geometry(pick(rng, kinds))
        f = {'type': 'Feature'}
        if rng.random() < 0.6:
            f['id'] = n if rng.random() < 0.5 else 'ca-%d-%d' % (idx, n)
        if rng.random() < 0.05:
            f['properties'] = None
        else:
            p = {'name': pick(rng, ['Canada', 'Nova Scotia', 'Newfoundland', 'Baffin Island', 'Lake Superior',
                                    'Vancouver Island', 'Hudson Bay', 'Yukon']), 'part': idx}
            if rng.random() < 0.7:
                p['source'] = 'canada.json'
            if rng.random() < 0.6:
                p['kind'] = pick(rng, ['coastline', 'island', 'lake', 'boundary', 'landmark'])
            if rng.random() < 0.4:
                p['length_km'] = round(rng.uniform(0.5, 5000), 3) + 0.0005
            if rng.random() < 0.3:
                p['tags'] = sample(rng, ['coast', 'arctic', 'atlantic', 'pacific', 'survey_2014', 'simplified'], 1, 3)
            f['properties'] = p
        f['geometry'] = g if rng.random() > 0.02 else None
        if g.get('coordinates') and g['type'] in ('LineString', 'MultiPoint') and rng.random() < 0.3:
            f['bbox'] = bbox(g['coordinates'])
        return f

    out = []
    for n in range(count):
        r = rng.random()
        if r < 0.75:
            out.append(feature(n))
        elif r < 0.9:
            out.append({'type': 'FeatureCollection', 'features': [feature(n) for _ in range(rng.randint(1, 4))]})
        else:
            out.append(geometry(pick(rng, kinds))[1])
    return out


# ---------------------------------------------------------------------------------------------
# (d) twitter statuses

TWITTER_DATE = '%a %b %d %H:%M:%S +0000 %Y'
DAYS = ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun']
MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec']


def twitter_date(text, shift_seconds):
    """Shifts a 'Sun Aug 31 00:29:15 +0000 2014' date (locale-independent)."""
    parts = text.split()
    t = datetime.datetime(int(parts[5]), MONTHS.index(parts[1]) + 1, int(parts[2]),
                          *(int(x) for x in parts[3].split(':')))
    t += datetime.timedelta(seconds=shift_seconds)
    return '%s %s %02d %02d:%02d:%02d %s %d' % (DAYS[t.weekday()], MONTHS[t.month - 1], t.day, t.hour, t.minute,
                                                 t.second, parts[4], t.year)


def perturb_status(rng, s, k):
    s = copy.deepcopy(s)
    shift = k * 7919

    def ids(obj, key):
        if isinstance(obj.get(key), int):
            obj[key] += shift
            if key + '_str' in obj:
                obj[key + '_str'] = str(obj[key])

    def walk(st):
        ids(st, 'id')
        st['created_at'] = twitter_date(st['created_at'], shift)
        st['retweet_count'] = max(0, st['retweet_count'] + rng.randint(-3, 50))
        st['favorite_count'] = max(0, st['favorite_count'] + rng.randint(0, 20))
        st['metadata']['result_type'] = pick(rng, ['recent', 'recent', 'recent', 'popular', 'mixed'])
        u = st['user']
        for key in ('followers_count', 'friends_count', 'statuses_count', 'favourites_count', 'listed_count'):
            u[key] = max(0, u[key] + rng.randint(-10, 1000))
        if rng.random() < 0.2:
            u['verified'] = not u['verified']
        if 'retweeted_status' in st:
            walk(st['retweeted_status'])
    walk(s)
    return s


def gen_twitter_all(rng, corpus, count):
    with open(os.path.join(corpus, 'twitter.json'), encoding='utf-8') as f:
        statuses = json.load(f)['statuses']
    out = []
    k = 0
    while len(out) < count:
        for s in statuses:
            if len(out) == count:
                break
            out.append(s if k == 0 else perturb_status(rng, s, k))
        k += 1
    return out


# ---------------------------------------------------------------------------------------------
# (e) citm_catalog events and performances

def gen_citm_all(rng, corpus, count):
    with open(os.path.join(corpus, 'citm_catalog.json'), encoding='utf-8') as f:
        doc = json.load(f)
    events, performances, names = doc['events'], doc['performances'], doc['seatCategoryNames']
    out = []
    k = 0
    while len(out) < count:
        shift = k * 1000003
        batch = []
        for e in events.values():
            e = copy.deepcopy(e)
            e['id'] += shift
            batch.append(e)
        for p in performances:
            p = copy.deepcopy(p)
            p['id'] += shift
            p['eventId'] += shift
            if k:
                p['start'] += rng.randint(0, 400) * 86400000
                for price in p['prices']:
                    price['amount'] = max(0, price['amount'] + rng.randint(-20, 20) * 250)
            if rng.random() < 0.4:
                e = copy.deepcopy(events[str(p['eventId'] - shift)])
                e['id'] += shift
                p['event'] = e
            if rng.random() < 0.3:
                p['seatCategoryNames'] = {str(c['seatCategoryId']): names[str(c['seatCategoryId'])]
                                          for c in p['seatCategories'] if str(c['seatCategoryId']) in names}
                if not p['seatCategoryNames']:
                    del p['seatCategoryNames']
            batch.append(p)
        rng.shuffle(batch)
        out.extend(batch[:count - len(out)])
        k += 1
    return out


def generate(name, seed, count, corpus, small=False):
    """count valid instances of data set `name` (before any mutation). small: GeoJSON rings of
    at most 30 points (for the differential test: python-jsonschema is slow on long arrays)."""
    rng = random.Random('%s/%d' % (name, seed))
    if name == 'package':
        pool = dep_pool()
        return [gen_package(rng, corpus, i, pool) for i in range(count)]
    if name == 'workflow':
        return [gen_workflow(rng, corpus, i) for i in range(count)]
    if name == 'geojson':
        return gen_geojson_all(rng, corpus, count, 30 if small else 1500)
    if name == 'twitter':
        return gen_twitter_all(rng, corpus, count)
    if name == 'citm':
        return gen_citm_all(rng, corpus, count)
    raise ValueError(name)


# ---------------------------------------------------------------------------------------------
# Mutations: what the differential test and the invalid benchmark records are made of.

class Pool:
    """Values a schema mentions: property names, enum and const values, numeric bounds (and
    their neighbours), so that mutations land near the schema's edges."""

    def __init__(self, schema):
        self.names, self.strings, self.numbers = set(), set(), set()
        self.walk(schema)
        self.names = sorted(self.names)
        self.strings = sorted(self.strings)
        self.numbers = sorted(self.numbers)

    def walk(self, s):
        if isinstance(s, list):
            for x in s:
                self.walk(x)
            return
        if not isinstance(s, dict):
            return
        for key in ('properties', 'dependentRequired', 'dependentSchemas'):
            if isinstance(s.get(key), dict):
                self.names.update(s[key])
        if isinstance(s.get('required'), list):
            self.names.update(s['required'])
        for key in ('enum', 'const'):
            if key in s:
                for v in (s[key] if key == 'enum' else [s[key]]):
                    if isinstance(v, str):
                        self.strings.add(v)
                    elif isinstance(v, (int, float)) and not isinstance(v, bool):
                        self.numbers.add(v)
        for key in ('minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum', 'multipleOf'):
            v = s.get(key)
            if isinstance(v, (int, float)) and not isinstance(v, bool):
                for x in (v, v - 1, v + 1, v - 0.5, v + 0.5, -v):
                    self.numbers.add(x)
        for key in ('minLength', 'maxLength', 'minItems', 'maxItems', 'minProperties', 'maxProperties'):
            v = s.get(key)
            if isinstance(v, int):
                self.numbers.add(v)
        for key, v in s.items():
            if key not in ('enum', 'const', 'required'):
                self.walk(v)


SAFE_INT = 1 << 62
CHARS = ['@', ' ', 'A', 'Z', '-', '.', '/', '0', '9', '_', '~', 'é', '日', '😀', '$', '{', '(', ':', '*', '!', '+']


def fix_number(x):
    """Keeps mutated numbers inside what every peer reads alike: no integral floats (1.0 is an
    integer for draft 6+ and a double to some readers), no integers past 2^62, no infinities."""
    if isinstance(x, bool):
        return x
    if isinstance(x, int):
        while abs(x) > SAFE_INT:
            x //= 7
        return x
    if not math.isfinite(x) or abs(x) > 1e300:
        return 1.25e300
    if x.is_integer():
        return int(x) if abs(x) < SAFE_INT else x + 0.5 if abs(x) < 1e15 else 1.5e15 + 0.25
    return x


def fix_string(s):
    # python-jsonschema's re.search lets '$' match before a final newline; ECMA-262 and RE2 do
    # not. No mutation makes a string end with one (the corpora's strings do not either).
    return s[:-1] + '.' if s.endswith('\n') else s


def random_value(rng, pool, instance):
    r = rng.random()
    if r < 0.25 and pool.strings:
        return pick(rng, pool.strings)
    if r < 0.45 and pool.numbers:
        return fix_number(pick(rng, pool.numbers))
    if r < 0.55:
        return pick(rng, [None, True, False, {}, [], '', 0, -1, 2.5, 'x'])
    if r < 0.7:
        nodes = list(walk_nodes(instance))
        return copy.deepcopy(pick(rng, nodes)[2])
    return pick(rng, ['zz', 'valid', 'Z' * 3, 'ok', '1.0.0', 'main', 'Point', 'inherit', 'ubuntu-latest', 12, 3.75, 10**9])


def walk_nodes(value, parent=None, key=None, depth=0):
    """(parent, key, value, depth) for every node, the root with parent None."""
    yield parent, key, value, depth
    if isinstance(value, dict):
        for k, v in value.items():
            yield from walk_nodes(v, value, k, depth + 1)
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from walk_nodes(v, value, i, depth + 1)


def mutate_value(rng, v, pool, instance):
    """A new value for node v (or v itself changed in place); returns the replacement."""
    if isinstance(v, dict):
        op = rng.random()
        if op < 0.35 and v:
            del v[pick(rng, list(v))]
        elif op < 0.7:
            r = rng.random()
            key = (pick(rng, pool.names) if r < 0.6 and pool.names else
                   pick(rng, ['zz_extra', 'x-extra', '_note', 'X', '', 'extra field', '0', 'é']))
            v[key] = random_value(rng, pool, instance)
        elif op < 0.8:
            return {}
        elif op < 0.9 and v:
            k = pick(rng, list(v))
            v[k] = mutate_value(rng, v[k], pool, instance)
        else:
            return random_value(rng, pool, instance)
        return v
    if isinstance(v, list):
        op = rng.random()
        if op < 0.25 and v:
            v.append(copy.deepcopy(pick(rng, v)))
        elif op < 0.45:
            del v[rng.randint(0, min(1, len(v))):]
        elif op < 0.6:
            v.append(random_value(rng, pool, instance))
        elif op < 0.7 and v:
            v.insert(0, random_value(rng, pool, instance))
        elif op < 0.8 and v:
            i = rng.randrange(len(v))
            v[i] = mutate_value(rng, v[i], pool, instance)
        else:
            return random_value(rng, pool, instance)
        return v
    if isinstance(v, bool):
        return pick(rng, [not v, 'true', 1, None])
    if isinstance(v, (int, float)):
        op = rng.random()
        if op < 0.15:
            return fix_number(-v if v else -1)
        if op < 0.3:
            return fix_number(v + pick(rng, [1, -1]))
        if op < 0.45:
            return fix_number(v * 1000 + 0.5)
        if op < 0.6 and pool.numbers:
            return fix_number(pick(rng, pool.numbers))
        if op < 0.7:
            return str(v)
        if op < 0.8:
            return fix_number(v + 0.25)
        return random_value(rng, pool, instance)
    if isinstance(v, str):
        op = rng.random()
        if op < 0.1:
            return ''
        if op < 0.3:
            return fix_string(v + pick(rng, CHARS))
        if op < 0.45:
            return fix_string(pick(rng, CHARS) + v)
        if op < 0.55:
            return fix_string(v.upper() if v != v.upper() else v.lower() + 'q')
        if op < 0.65 and pool.strings:
            return pick(rng, pool.strings)
        if op < 0.72:
            return fix_string((v or 'a') * (300 // max(1, len(v)) + 1))
        if op < 0.8 and len(v) > 1:
            i = rng.randrange(len(v))
            return fix_string(v[:i] + pick(rng, CHARS) + v[i + 1:])
        return random_value(rng, pool, instance)
    return random_value(rng, pool, instance)  # null


def mutate(rng, instance, pool, edits=None):
    """A copy of instance with 1 to 3 random edits (at random nodes, deeper ones as likely as any)."""
    inst = copy.deepcopy(instance)
    for _ in range(edits or pick(rng, [1, 1, 1, 2, 2, 3])):
        nodes = list(walk_nodes(inst))
        parent, key, v, _ = pick(rng, nodes)
        new = mutate_value(rng, v, pool, inst)
        if parent is None:
            inst = new
        else:
            parent[key] = new
    return inst


# ---------------------------------------------------------------------------------------------
# Draft-7 versions (for valijson, which knows drafts 4 and 7 only).

DRAFT7 = 'http://json-schema.org/draft-07/schema#'


def to_draft7(schema):
    """(draft-7 schema, notes). $defs -> definitions, prefixItems/items -> items/additionalItems,
    dependentRequired/dependentSchemas -> dependencies, a $ref with siblings -> allOf, format
    dropped (an annotation in 2020-12 by default; valijson would assert date/time formats), and
    unevaluatedProperties: false -> additionalProperties: false over the property names and
    patterns that the schema and its allOf / $ref chain declare. That last one is exact only when
    nothing else (anyOf/oneOf/if branches) evaluates other properties; notes say where it may not be."""
    notes = []
    root = schema

    def resolve(ref):
        if not ref.startswith('#/'):
            return None
        node = root
        for part in ref[2:].split('/'):
            node = node.get(part.replace('~1', '/').replace('~0', '~')) if isinstance(node, dict) else None
        return node

    def declared(s, seen, where):
        """Property names and patterns s evaluates for sure (properties, patternProperties, via
        allOf and $ref), and names that other branches declare (may or may not be evaluated)."""
        names, patterns, maybe = set(), set(), set()
        if not isinstance(s, dict) or id(s) in seen:
            return names, patterns, maybe
        seen = seen | {id(s)}
        names.update((s.get('properties') or {}).keys())
        patterns.update((s.get('patternProperties') or {}).keys())
        subs = list(s.get('allOf') or [])
        if isinstance(s.get('$ref'), str):
            subs.append(resolve(s['$ref']))
        for sub in subs:
            n, p, m = declared(sub, seen, where)
            names |= n
            patterns |= p
            maybe |= m
        for key in ('anyOf', 'oneOf'):
            for sub in s.get(key) or []:
                n, p, m = declared(sub, seen, where)
                maybe |= n | m
        for key in ('if', 'then', 'else', 'dependentSchemas'):
            if isinstance(s.get(key), dict):
                for sub in (s[key].values() if key == 'dependentSchemas' else [s[key]]):
                    n, p, m = declared(sub, seen, where)
                    maybe |= n | m
        return names, patterns, maybe

    def conv(s, path):
        if isinstance(s, list):
            return [conv(x, '%s/%d' % (path, i)) for i, x in enumerate(s)]
        if not isinstance(s, dict):
            return s
        out = {}
        for k, v in s.items():
            if k == '$schema':
                out[k] = DRAFT7
            elif k == '$defs':
                out['definitions'] = {n: conv(x, '%s/$defs/%s' % (path, n)) for n, x in v.items()}
            elif k == '$ref':
                out[k] = v.replace('#/$defs/', '#/definitions/')
            elif k == 'format':
                continue
            elif k in ('properties', 'patternProperties', 'dependentSchemas'):
                out[k] = {n: conv(x, '%s/%s/%s' % (path, k, n)) for n, x in v.items()}
            elif k in ('prefixItems', 'items'):
                continue  # below
            elif k == 'dependentRequired':
                continue  # below
            elif k == 'unevaluatedProperties':
                continue  # below
            elif k in ('unevaluatedItems', '$dynamicRef', '$dynamicAnchor', 'minContains', 'maxContains'):
                raise ValueError('%s: %s has no draft-7 form here' % (path, k))
            else:
                out[k] = conv(v, '%s/%s' % (path, k))
        if 'prefixItems' in s:
            out['items'] = conv(s['prefixItems'], path + '/prefixItems')
            if 'items' in s:
                out['additionalItems'] = conv(s['items'], path + '/items')
        elif 'items' in s:
            out['items'] = conv(s['items'], path + '/items')
        deps = {}
        for n, x in (s.get('dependentRequired') or {}).items():
            deps[n] = list(x)
        for n, x in (out.pop('dependentSchemas', None) or {}).items():
            deps[n] = x
        if deps:
            out['dependencies'] = deps
        if 'unevaluatedProperties' in s:
            u = s['unevaluatedProperties']
            if u is not False:
                raise ValueError('%s: unevaluatedProperties other than false has no draft-7 form here' % path)
            names, patterns, maybe = declared(s, frozenset(), path)
            props = dict(out.get('properties') or {})
            for n in sorted(names):
                props.setdefault(n, True)
            pats = dict(out.get('patternProperties') or {})
            for p in sorted(patterns):
                pats.setdefault(p, True)
            out['properties'], out['additionalProperties'] = props, False
            if pats:
                out['patternProperties'] = pats
            extra = sorted(maybe - names)
            notes.append('%s: unevaluatedProperties: false -> additionalProperties: false over %d names and %d '
                         'patterns (properties, allOf, $ref)%s' % (
                             path or '#', len(props), len(pats),
                             '; other branches declare %s: not exact' % ', '.join(extra) if extra else '; exact'))
        if '$ref' in out and len([k for k in out if k not in ('$ref', 'definitions', '$schema', 'title',
                                                                'description', '$comment')]) > 0:
            ref = out.pop('$ref')
            out['allOf'] = [{'$ref': ref}] + list(out.get('allOf') or [])
        elif '$ref' in out and path == '':
            out['allOf'] = [{'$ref': out.pop('$ref')}]  # a root $ref beside definitions
        return out

    converted = conv(schema, '')
    converted['$schema'] = DRAFT7
    return converted, notes


# ---------------------------------------------------------------------------------------------
# The python-jsonschema oracle and the binary sequences.

def python_validator(schema):
    import jsonschema  # python3-jsonschema (Debian 12: 4.10.3)
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    return cls(schema)  # no format_checker: format is an annotation


def write_sequences(records, base):
    import cbor2
    import msgpack
    with open(base + '.cbor-seq', 'wb') as f:
        for r in records:
            f.write(cbor2.dumps(r))
    with open(base + '.msgpack-seq', 'wb') as f:
        for r in records:
            f.write(msgpack.packb(r, use_bin_type=True))


def bench_records(name, seed, count, invalid, corpus, validator, pool):
    """count records, `invalid` of them (a fraction) mutated until python-jsonschema refuses them."""
    records = generate(name, seed, count, corpus)
    rng = random.Random('%s/%d/invalid' % (name, seed))
    verdicts = []
    for i, r in enumerate(records):
        if rng.random() < invalid:
            for _ in range(50):
                m = mutate(rng, r, pool)
                if not validator.is_valid(m):
                    records[i] = m
                    break
        verdicts.append(1 if validator.is_valid(records[i]) else 0)
    return records, verdicts


def differential_records(name, seed, count, corpus, pool):
    """count instances: one in eight a valid one as generated, the others mutated (1 to 3 edits)."""
    base = generate(name, seed, max(50, count // 4), corpus, small=True)
    rng = random.Random('%s/%d/differential' % (name, seed))
    out = []
    for i in range(count):
        v = base[i % len(base)]
        out.append(v if rng.random() < 0.125 else mutate(rng, v, pool))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest='cmd', required=True)
    b = sub.add_parser('bench')
    b.add_argument('--out', required=True)
    b.add_argument('--seed', type=int, default=42)
    b.add_argument('--count', type=int, default=1000)
    b.add_argument('--invalid', type=float, default=0.05)
    b.add_argument('--corpus', default=DEFAULT_CORPUS)
    b.add_argument('--only', help='comma-separated data set names')
    d = sub.add_parser('differential')
    d.add_argument('--out', required=True)
    d.add_argument('--seed', type=int, default=7)
    d.add_argument('--count', type=int, default=3000)
    d.add_argument('--corpus', default=DEFAULT_CORPUS)
    d.add_argument('--only', help='comma-separated data set names')
    c = sub.add_parser('draft7')
    c.add_argument('schema')
    args = ap.parse_args()

    if args.cmd == 'draft7':
        with open(args.schema, encoding='utf-8') as f:
            converted, notes = to_draft7(json.load(f))
        print(json.dumps(converted, indent=2, ensure_ascii=False))
        for n in notes:
            print('note: ' + n, file=sys.stderr)
        return

    os.makedirs(args.out, exist_ok=True)
    names = args.only.split(',') if args.only else DATASETS
    manifest = {}
    for name in names:
        schema = load_schema(name)
        pool = Pool(schema)
        with open(os.path.join(args.out, name + '.schema.json'), 'w', encoding='utf-8') as f:
            json.dump(schema, f, indent=2, ensure_ascii=False)
            f.write('\n')
        if args.cmd == 'differential':
            records = differential_records(name, args.seed, args.count, args.corpus, pool)
            path = os.path.join(args.out, name + '.diff.jsonl')
            with open(path, 'w', encoding='utf-8') as f:
                for r in records:
                    f.write(dumps(r) + '\n')
            print('schemadata: %s: %d instances, %d bytes' % (path, len(records), os.path.getsize(path)),
                  file=sys.stderr)
            continue
        validator = python_validator(schema)
        records, verdicts = bench_records(name, args.seed, args.count, args.invalid, args.corpus, validator, pool)
        base = os.path.join(args.out, name)
        with open(base + '.jsonl', 'w', encoding='utf-8') as f:
            for r in records:
                f.write(dumps(r) + '\n')
        with open(base + '.verdicts', 'w') as f:
            f.write(''.join('%d\n' % v for v in verdicts))
        write_sequences(records, base)
        converted, notes = to_draft7(schema)
        with open(base + '.draft7.schema.json', 'w', encoding='utf-8') as f:
            json.dump(converted, f, indent=2, ensure_ascii=False)
            f.write('\n')
        manifest[name] = {
            'records': len(records), 'invalid': verdicts.count(0),
            'bytes': {ext: os.path.getsize(base + '.' + ext) for ext in ('jsonl', 'cbor-seq', 'msgpack-seq')},
            'draft7_notes': notes, 'seed': args.seed, 'source': fingerprint(name)}
        print('schemadata: %s: %d records (%d invalid), %d bytes of JSON Lines' % (
            name, len(records), verdicts.count(0), manifest[name]['bytes']['jsonl']), file=sys.stderr)
    if args.cmd == 'bench':
        path = os.path.join(args.out, 'manifest.json')
        old = {}
        if os.path.exists(path) and args.only:
            with open(path) as f:
                old = json.load(f)
        old.update(manifest)
        with open(path, 'w') as f:
            json.dump(old, f, indent=2)
            f.write('\n')


if __name__ == '__main__':
    main()
