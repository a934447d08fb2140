import { SandpitError, toErrorBody } from '../../shared/api/errors';
import type { Flavour } from '../../shared/domain/languages';
import { diagnoseInstall } from '../installers/install-diagnosis';
import type { DockerClient } from './docker-client';
import { ensureExecutorImage, planExecutorImage } from './image-builder';

export interface ExecutorImagesOptions {
  /** The executor-image/ folder; default: the repository's. */
  imagesDir?: string;
  /** Tags to use instead of the built ones (SANDPIT_PYTHON_IMAGE, tests). */
  overrides?: Partial<Record<Flavour, string>>;
}

/**
 * The executor image of each flavour, resolved once: its tag is a content hash of the image's files and
 * base, which do not change while Sandpit runs. `ensure` builds a missing one; `ifBuilt` never builds.
 */
export class ExecutorImages {
  private readonly known = new Map<Flavour, string>();
  private readonly building = new Map<Flavour, Promise<string>>();

  constructor(
    private readonly docker: DockerClient,
    private readonly options: ExecutorImagesOptions = {},
  ) {
    for (const [flavour, tag] of Object.entries(options.overrides ?? {}) as Array<[Flavour, string | undefined]>) if (tag) this.known.set(flavour, tag);
  }

  /** The flavour's image, built first when it is missing (concurrent callers share one build). */
  ensure(flavour: Flavour): Promise<string> {
    const known = this.known.get(flavour);
    if (known) return Promise.resolve(known);
    let pending = this.building.get(flavour);
    if (!pending) {
      const log: string[] = [];
      pending = ensureExecutorImage(this.docker, flavour, { imagesDir: this.options.imagesDir, onLog: (line) => void (log.push(line) > 400 && log.shift()) })
        .then((tag) => {
          this.known.set(flavour, tag);
          return tag;
        })
        .catch((error: unknown) => {
          // A base bootstrapped from Debian packages needs the Debian mirror: say so in plain words.
          const message = toErrorBody(error).message;
          const diagnosis = diagnoseInstall({ manager: 'apt', log: [...log, message].join('\n'), packages: [] });
          if (diagnosis.cause !== 'unreachable' && diagnosis.cause !== 'disk') throw error;
          throw new SandpitError('IMAGE_MISSING', `The ${flavour} sandbox image could not be made: ${diagnosis.summary} ${diagnosis.fixes[0] ?? ''}`.trim(), { diagnosis, cause: message });
        })
        .finally(() => this.building.delete(flavour));
      this.building.set(flavour, pending);
    }
    return pending;
  }

  /** Forgets what was found (another engine has other images); overrides stay. */
  forget(): void {
    this.known.clear();
    for (const [flavour, tag] of Object.entries(this.options.overrides ?? {}) as Array<[Flavour, string | undefined]>) if (tag) this.known.set(flavour, tag);
  }

  /** The flavour's image tag when it is built, else undefined (nothing is built). */
  async ifBuilt(flavour: Flavour): Promise<string | undefined> {
    const known = this.known.get(flavour);
    if (known) return known;
    const plan = await planExecutorImage(this.docker, flavour, { imagesDir: this.options.imagesDir }).catch(() => undefined);
    if (!plan || !(await this.docker.imageExists(plan.tag))) return undefined;
    this.known.set(flavour, plan.tag);
    return plan.tag;
  }
}
