// schema-gen.mjs — generates src/pod/schema_table.c, the field sets of the
// core/v1 kinds slurmlink stores, from the TypeScript declarations of the npm
// package kubernetes-models (generated from Kubernetes' OpenAPI; 5.x is
// generated from Kubernetes 1.36, so no field of 1.32 is missing).
// Run it through `make schema` (scripts/schema.sh: the pinned version 5.1.0
// and its SHA-256, npm pack, this script, clang-format); t/36-schema-gen.t
// checks that the committed file is a fresh generation.
import fs from "fs";
import path from "path";

const dir = process.argv[2];
const roots = { Pod: "Pod", ConfigMap: "ConfigMap", Secret: "Secret", Namespace: "Namespace",
                ServiceAccount: "ServiceAccount", Event: "Event", ResourceQuota: "ResourceQuota",
                PersistentVolumeClaim: "PersistentVolumeClaim", PersistentVolume: "PersistentVolume",
                Service: "Service", Endpoints: "Endpoints" };
// batch/v1 kinds: their folder beside v1 (the package's batch/v1); their
// types reach core/v1 ones (PodTemplateSpec) through "../../v1/" imports.
// Type names do not collide across the two folders.
const batchRoots = ["Job", "CronJob"];
// discovery.k8s.io/v1 EndpointSlice: its EndpointPort has the fields of
// core/v1's (appProtocol, name, port, protocol), the one name both hold.
const discoveryRoots = ["EndpointSlice"];
// apps/v1 kinds likewise (the package's apps/v1), and autoscaling/v1 Scale,
// the scale subresource's body
const appsRoots = ["Deployment", "ReplicaSet", "StatefulSet"];
const autoscalingRoots = ["Scale"];
// apimachinery types are not in the package's v1 folder: written by hand
const META = "IIoK8sApimachineryPkgApisMetaV1";
const manual = {
  ObjectMeta: [["annotations", "leaf"], ["creationTimestamp", "leaf"],
    ["deletionGracePeriodSeconds", "leaf"], ["deletionTimestamp", "leaf"], ["finalizers", "leaf"],
    ["generateName", "leaf"], ["generation", "leaf"], ["labels", "leaf"],
    ["managedFields", "array", "ManagedFieldsEntry"], ["name", "leaf"], ["namespace", "leaf"],
    ["ownerReferences", "array", "OwnerReference"], ["resourceVersion", "leaf"],
    ["selfLink", "leaf"], ["uid", "leaf"]],
  ManagedFieldsEntry: [["apiVersion", "leaf"], ["fieldsType", "leaf"], ["fieldsV1", "leaf"],
    ["manager", "leaf"], ["operation", "leaf"], ["subresource", "leaf"], ["time", "leaf"]],
  OwnerReference: [["apiVersion", "leaf"], ["blockOwnerDeletion", "leaf"], ["controller", "leaf"],
    ["kind", "leaf"], ["name", "leaf"], ["uid", "leaf"]],
  LabelSelector: [["matchExpressions", "array", "LabelSelectorRequirement"], ["matchLabels", "leaf"]],
  LabelSelectorRequirement: [["key", "leaf"], ["operator", "leaf"], ["values", "leaf"]],
};
const types = {}; // name -> [[field, kind, type]]
function load(name, from = dir) {
  if (types[name]) return;
  if (manual[name]) {
    types[name] = manual[name];
    for (const f of manual[name]) if (f[2]) load(f[2]);
    return;
  }
  const text = fs.readFileSync(path.join(from, name + ".d.ts"), "utf8");
  const imports = {};
  for (const m of text.matchAll(/import \{ (\w+) \} from "([^"]+)";/g)) imports[m[1]] = m[2];
  const body = text.match(new RegExp("export interface I" + name + "\\b[^{]*\\{([\\s\\S]*?)\\n\\}"))[1]
    .replace(/\/\*\*[\s\S]*?\*\//g, "");
  const fields = [];
  // a property runs from `"name"?:` to the `;` that closes it at brace depth 0
  const re = /\n {4}"([^"]+)"\??: /g;
  let m;
  while ((m = re.exec(body))) {
    let i = re.lastIndex, depth = 0, t = "";
    for (; i < body.length; i++) {
      const c = body[i];
      if (c === "{" || c === "<" || c === "(") depth++;
      if (c === "}" || c === ">" || c === ")") depth--;
      if (c === ";" && depth === 0) break;
      t += c;
    }
    re.lastIndex = i;
    const ref = t.match(/IIoK8s\w+/);
    let kind = "leaf", target = null;
    // an array of an inline object the package writes for a whole core kind
    // (a StatefulSet's volumeClaimTemplates: PersistentVolumeClaim), the
    // kind named by its spec's type
    const inline = t.match(/^\s*Array<\{[\s\S]*"spec"\?: IIoK8sApiCoreV1(\w+)Spec;/);
    if (inline) {
      target = inline[1];
      kind = "array";
      folders[target] = dir;
    } else if (ref) {
      const id = ref[0];
      let tname = null;
      if (id.startsWith(META)) {
        const short = id.slice(META.length);
        if (manual[short]) tname = short;
      } else if (imports[id] && imports[id].startsWith(".")) {
        const file = path.resolve(from, imports[id].replace(/\.js$/, ""));
        tname = path.basename(file);
        folders[tname] = path.dirname(file);
      }
      if (tname) {
        target = tname;
        kind = /^\s*Array</.test(t) ? "array" : /^\s*\{\s*\[key: string\]/.test(t) ? "map" : "struct";
      }
    }
    fields.push([m[1], kind, target]);
  }
  types[name] = fields;
  for (const f of fields) if (f[2]) load(f[2], folders[f[2]] || from);
}
const folders = {}; // type name -> the folder of its .d.ts (when not dir)
for (const r of Object.keys(roots)) load(r);
for (const r of batchRoots) load(r, path.join(dir, "../batch/v1"));
for (const r of discoveryRoots) load(r, path.join(dir, "../discovery.k8s.io/v1"));
for (const r of appsRoots) load(r, path.join(dir, "../apps/v1"));
for (const r of autoscalingRoots) load(r, path.join(dir, "../autoscaling/v1"));
const names = Object.keys(types).sort();
const idx = Object.fromEntries(names.map((n, i) => [n, i]));
let out = "/* schema_table.c — GENERATED by src/pod/gen/schema-gen.mjs from kubernetes-models\n" +
  " * (Kubernetes' OpenAPI). Do not edit: `make schema` regenerates it. */\n#include \"pod/schema_internal.h\"\n\n";
for (const n of names) {
  out += `static const sl_sfield_t f_${n}[] = {\n`;
  for (const [f, k, t] of types[n].sort((a, b) => (a[0] < b[0] ? -1 : 1)))
    out += `    {"${f}", SL_SF_${k.toUpperCase()}, ${t ? idx[t] : -1}},\n`;
  out += "};\n";
}
out += "\nconst sl_stype_t sl_schema_types[] = {\n";
for (const n of names) out += `    {"${n}", f_${n}, sizeof(f_${n}) / sizeof(f_${n}[0])},\n`;
out += "};\nconst size_t sl_schema_ntypes = " + names.length + ";\n";
process.stdout.write(out);
