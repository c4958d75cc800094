// What the hook itself puts in the server's pod, in one place: its volumes,
// the container's mounts of them, the variables it sets and the env names it
// keeps for itself, each tagged with the feature it is for. The Deployment
// (deployment.ts) mounts these volumes and sets these variables; the override
// checks (overrides.ts) reserve exactly these names, so a new feature's volume
// is reserved the moment it is mounted.
import type { Volume, VolumeMount } from "kubernetes-types/core/v1.js";
import type { CaBundle } from "../api/ca-bundle.js";
import {
  AUTH_CA,
  CONFIG_FILE,
  CONFIG_MOUNT_DIR,
  caFilePath,
  type CaFile,
  dataEnv,
  OGX_TMP,
  RESERVED_ENV,
  RESERVED_ENV_PREFIX,
  serverEnv,
  TLS_MOUNT_DIR,
  TRUST,
  TRUST_FILE,
} from "../container.js";
import type { ReleaseFacts } from "../release.js";

/** What a volume, mount or env name is for. */
type Feature =
  "config" | "data" | "server" | "ogx-tmp" | "tls" | "trust" | "auth-ca" | "monitoring" | "hook";

const VOLUME_NAMES = { config: "config", data: "data", tls: "tls" } as const;

/** What of the Deployment's input decides the layout (deployment.ts DeploymentInput). */
export interface LayoutInput {
  /** The ConfigMap holding config.yaml. */
  configMapName: string;
  /** The data volume's mount path, without a trailing slash. */
  dataDir: string;
  /** The PVC to mount as the data volume (else an emptyDir). */
  pvcName: string | undefined;
  /** What the release means (release.ts): OGX, its env names; undefined for a custom image. */
  releaseFacts: ReleaseFacts | undefined;
  /** The server's port (its env name is the release's). */
  port: number;
  /** The server's own TLS, when on. */
  tls: { secretName: string } | undefined;
  /** spec.trust.caBundle. */
  caBundle?: CaBundle | undefined;
  /** spec.auth's CA. */
  authCa?: CaBundle | undefined;
  /** The environment spec.monitoring sets (children/monitoring.ts). */
  monitoringEnv?: Record<string, string> | undefined;
}

/** A volume of the hook's, the container's mount of it, and the directory the mount takes. */
interface OwnVolume {
  feature: Feature;
  volume: Volume;
  mount: VolumeMount;
  /** The path overrides may not mount at: the mount's, or its directory for a single file. */
  reservedPath: string;
}

/** A variable the hook sets in the container. */
interface OwnEnv {
  feature: Feature;
  name: string;
  value: string;
}

/** A name the overrides may not take, and why. */
export interface Reserved {
  feature: Feature;
  name: string;
}

export interface PodLayout {
  /** The hook's volumes with their mounts, in the order the pod lists them. */
  volumes: readonly OwnVolume[];
  /**
   * The variables the hook sets: the data paths (spec.workload.overrides.env
   * may change them), the config path and port, spec.monitoring's (which
   * children/monitoring.ts refuses in the overrides) and the trust bundle's
   * path. The start command's own (deployment.ts) comes with the command.
   */
  env: readonly OwnEnv[];
  /** Volume names spec.workload.overrides.volumes may not take. */
  reservedVolumes: readonly Reserved[];
  /** Mount paths (without a trailing slash) spec.workload.overrides.volumeMounts may not take. */
  reservedMountPaths: readonly Reserved[];
  /** Env names spec.workload.overrides.env may not set (the data paths it may). */
  reservedEnv: readonly Reserved[];
  /** Every env name with this prefix is reserved too. */
  reservedEnvPrefix: Reserved;
}

/**
 * Reserved though not always mounted: the TLS volume name and directory are
 * refused in the overrides whether TLS is on or not, as they always have been,
 * so turning TLS on never makes accepted overrides collide with it.
 */
const RESERVED_ALWAYS: readonly { feature: Feature; volume: string; path: string }[] = [
  { feature: "tls", volume: VOLUME_NAMES.tls, path: TLS_MOUNT_DIR },
];

/**
 * A CA file from a ConfigMap key (spec.trust's bundle, spec.auth's CA). A
 * single-file mount (subPath) still reserves its whole directory.
 */
function caVolume(feature: Feature, ca: CaFile, bundle: CaBundle): OwnVolume {
  const items = [{ key: bundle.key, path: ca.file }];
  return {
    feature,
    volume: { name: ca.volume, configMap: { name: bundle.configMapName, items } },
    mount:
      ca.mount === "file"
        ? { name: ca.volume, mountPath: caFilePath(ca), subPath: ca.file, readOnly: true }
        : { name: ca.volume, mountPath: ca.mountDir, readOnly: true },
    reservedPath: ca.mountDir,
  };
}

/** The config, data, OGX /tmp, TLS, CA bundle and auth CA volumes, in that order. */
function ownVolumes(input: LayoutInput): OwnVolume[] {
  const volumes: OwnVolume[] = [
    {
      feature: "config",
      volume: {
        name: VOLUME_NAMES.config,
        configMap: { name: input.configMapName, items: [{ key: CONFIG_FILE, path: CONFIG_FILE }] },
      },
      mount: { name: VOLUME_NAMES.config, mountPath: CONFIG_MOUNT_DIR, readOnly: true },
      reservedPath: CONFIG_MOUNT_DIR,
    },
    {
      feature: "data",
      volume:
        input.pvcName === undefined
          ? { name: VOLUME_NAMES.data, emptyDir: {} }
          : { name: VOLUME_NAMES.data, persistentVolumeClaim: { claimName: input.pvcName } },
      mount: { name: VOLUME_NAMES.data, mountPath: input.dataDir },
      reservedPath: input.dataDir,
    },
  ];
  if (input.releaseFacts?.ogx === true) {
    volumes.push({
      feature: "ogx-tmp",
      volume: {
        name: OGX_TMP.volume,
        emptyDir: { medium: "Memory", sizeLimit: OGX_TMP.sizeLimit },
      },
      mount: { name: OGX_TMP.volume, mountPath: OGX_TMP.mountPath },
      reservedPath: OGX_TMP.mountPath,
    });
  }
  if (input.tls !== undefined) {
    volumes.push({
      feature: "tls",
      volume: { name: VOLUME_NAMES.tls, secret: { secretName: input.tls.secretName } },
      mount: { name: VOLUME_NAMES.tls, mountPath: TLS_MOUNT_DIR, readOnly: true },
      reservedPath: TLS_MOUNT_DIR,
    });
  }
  if (input.caBundle !== undefined) volumes.push(caVolume("trust", TRUST, input.caBundle));
  if (input.authCa !== undefined) volumes.push(caVolume("auth-ca", AUTH_CA, input.authCa));
  return volumes;
}

function ownEnv(input: LayoutInput): OwnEnv[] {
  const tagged = (vars: Record<string, string>, feature: (name: string) => Feature) =>
    Object.entries(vars).map(([name, value]) => ({ feature: feature(name), name, value }));
  return [
    ...tagged(dataEnv(input.dataDir), () => "data"),
    ...tagged(serverEnv(input.releaseFacts, input.port), (name) => RESERVED_ENV[name] ?? "server"),
    ...tagged(input.monitoringEnv ?? {}, () => "monitoring"),
    ...(input.caBundle === undefined
      ? []
      : [{ feature: "trust" as const, name: TRUST.env, value: TRUST_FILE }]),
  ];
}

/** Each name once, the first feature that names it kept. */
function unique(reserved: readonly Reserved[]): Reserved[] {
  const seen = new Set<string>();
  return reserved.filter((r) => !seen.has(r.name) && seen.add(r.name));
}

export function podLayout(input: LayoutInput): PodLayout {
  const volumes = ownVolumes(input);
  return {
    volumes,
    env: ownEnv(input),
    reservedVolumes: unique([
      ...volumes.map((v) => ({ feature: v.feature, name: v.volume.name })),
      ...RESERVED_ALWAYS.map((r) => ({ feature: r.feature, name: r.volume })),
    ]),
    reservedMountPaths: unique([
      ...volumes.map((v) => ({ feature: v.feature, name: v.reservedPath })),
      ...RESERVED_ALWAYS.map((r) => ({ feature: r.feature, name: r.path })),
    ]),
    reservedEnv: Object.entries(RESERVED_ENV).map(([name, feature]) => ({ feature, name })),
    reservedEnvPrefix: { feature: "hook", name: RESERVED_ENV_PREFIX },
  };
}
