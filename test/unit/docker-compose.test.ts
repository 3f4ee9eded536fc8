/**
 * docker-compose.yml cannot run on these machines (no Docker engine), so this checks what can be
 * checked without it (docs/cluster.md "docker-compose.yml"): it parses; it has the cluster's
 * services; every published port is bound to 127.0.0.1; the scalable worker publishes none; every
 * file it mounts or builds from exists in the repository; Temporal runs on the SAME config file as
 * `make cluster` (deploy/temporal/config.yaml) and its schema and namespace scripts; the health
 * checks use /readyz; and, when the Temporal server binary is built, the dynamic config validates.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { parse } from 'yaml';

const ROOT = path.resolve(__dirname, '..', '..', '..');

interface Service {
  image?: string;
  build?: string | { context: string };
  entrypoint?: string[] | string;
  command?: string[] | string;
  ports?: string[];
  volumes?: string[];
  environment?: Record<string, string>;
  depends_on?: Record<string, { condition: string }>;
  healthcheck?: { test: string[] };
  container_name?: string;
}

describe('docker-compose.yml', () => {
  const compose = parse(fs.readFileSync(path.join(ROOT, 'docker-compose.yml'), 'utf8'), { merge: true }) as {
    services: Record<string, Service>;
  };
  const services = compose.services;

  it('has the cluster topology: PostgreSQL and Temporal (schema, server, namespace, UI), MySQL, API, workers, bundler', () => {
    expect(Object.keys(services)).to.have.members([
      'postgres',
      'temporal-schema',
      'temporal',
      'temporal-namespace',
      'temporal-ui',
      'mysql',
      'api',
      'worker',
      'bundler',
    ]);
    for (const [name, s] of Object.entries(services)) {
      for (const dep of Object.keys(s.depends_on ?? {}))
        expect(services, `${name} depends on ${dep}`).to.have.property(dep);
    }
  });

  it('publishes every port on 127.0.0.1 only; the worker publishes none and has no fixed name, so it scales', () => {
    for (const [name, s] of Object.entries(services)) {
      for (const port of s.ports ?? []) expect(port, `${name} ${port}`).to.match(/^127\.0\.0\.1:\d+:\d+$/);
    }
    expect(services.worker!.ports ?? []).to.deep.equal([]);
    expect(services.worker!.container_name).to.equal(undefined);
    expect(services.temporal!.ports).to.include.members(['127.0.0.1:7233:7233', '127.0.0.1:8000:8000']);
  });

  it('mounts and builds only what exists in the repository; Temporal uses deploy/temporal/config.yaml, as make cluster does', () => {
    for (const [name, s] of Object.entries(services)) {
      for (const volume of s.volumes ?? []) {
        const source = volume.split(':')[0]!;
        if (source.startsWith('.'))
          expect(fs.existsSync(path.join(ROOT, source)), `${name} mounts ${source}`).to.equal(true);
      }
      if (s.build) {
        const context = typeof s.build === 'string' ? s.build : s.build.context;
        expect(fs.existsSync(path.join(ROOT, context, 'Dockerfile')), `${name} builds ${context}`).to.equal(true);
      }
    }
    for (const name of ['temporal-schema', 'temporal', 'temporal-namespace']) {
      expect(services[name]!.volumes, name).to.include('./deploy/temporal:/etc/temporal/assay:ro');
    }
    // The mounted folder holds what the containers run.
    const entry = (s: Service) => [s.entrypoint, s.command].flat().join(' ');
    expect(entry(services.temporal!)).to.include('--config-file /etc/temporal/assay/config.yaml');
    expect(entry(services['temporal-schema']!)).to.include('/etc/temporal/assay/setup-schema.sh');
    expect(entry(services['temporal-namespace']!)).to.include('/etc/temporal/assay/register-namespace.sh');
    expect(services.temporal!.environment!.TEMPORAL_SERVER_DYNAMIC_CONFIG).to.equal(
      '/etc/temporal/assay/dynamicconfig.yaml',
    );
    for (const file of ['config.yaml', 'dynamicconfig.yaml', 'setup-schema.sh', 'register-namespace.sh']) {
      expect(fs.existsSync(path.join(ROOT, 'deploy', 'temporal', file)), file).to.equal(true);
    }
    for (const script of ['setup-schema.sh', 'register-namespace.sh']) {
      expect(
        fs.statSync(path.join(ROOT, 'deploy', 'temporal', script)).mode & 0o111,
        `${script} is executable`,
      ).to.not.equal(0);
    }
    // bin/cluster.ts reads the same file.
    expect(fs.readFileSync(path.join(ROOT, 'bin', 'cluster.ts'), 'utf8')).to.include(
      "path.join(REPO_ROOT, 'deploy', 'temporal', 'config.yaml')",
    );
  });

  it('Temporal and Assay use the same namespace and the template knows every variable compose sets', () => {
    expect(services['temporal-namespace']!.environment!.TEMPORAL_NAMESPACE).to.equal(
      services.api!.environment!.TEMPORAL_NAMESPACE,
    );
    const template = fs.readFileSync(path.join(ROOT, 'deploy', 'temporal', 'config.yaml'), 'utf8');
    expect(template.slice(0, 1024)).to.include('enable-template');
    for (const variable of Object.keys(services.temporal!.environment ?? {})) {
      expect(template.includes(`"${variable}"`), `${variable} in config.yaml`).to.equal(true);
    }
  });

  it('health checks use /readyz for the API, workers and bundler, and the cluster health RPC for Temporal', () => {
    for (const name of ['api', 'worker', 'bundler'])
      expect(services[name]!.healthcheck!.test.join(' '), name).to.include('/readyz');
    expect(services.temporal!.healthcheck!.test.join(' ')).to.include('operator cluster health');
  });

  it('the dynamic config validates with the Temporal server (when it is built)', function () {
    const server = path.join(
      process.env.ASSAY_CACHE || path.join(os.homedir(), '.cache', 'assay'),
      'temporal-server-1.30.8',
      'bin',
      'temporal-server',
    );
    if (!fs.existsSync(server)) return this.skip();
    const r = spawnSync(
      server,
      ['validate-dynamic-config', path.join(ROOT, 'deploy', 'temporal', 'dynamicconfig.yaml')],
      { encoding: 'utf8', timeout: 30_000 },
    );
    expect(r.status, `${r.stdout}${r.stderr}`).to.equal(0);
    expect(r.stdout).to.not.match(/error|warning/);
  });
});
