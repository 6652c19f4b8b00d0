// suite.mjs — @kubernetes/client-node against slurmlinkd (run by
// t/52-client-node.t): create, list (paged), patch, logs, watch to
// completion, an informer across a daemon restart, delete, errors.
// Prints "ok - ..." / "not ok - ..." lines; the .t file counts them.
// env: CN_DIR (the client's cache), KUBECONFIG, API, AD, NS, RESTART (a
// command that restarts the daemon on the same port and state).
import { execSync } from 'node:child_process';
import { Writable } from 'node:stream';

const k8s = await import(`${process.env.CN_DIR}/node_modules/@kubernetes/client-node/dist/index.js`);
const kc = new k8s.KubeConfig();
kc.loadFromFile(process.env.KUBECONFIG);
const core = kc.makeApiClient(k8s.CoreV1Api);
const NS = process.env.NS;

function check(cond, desc, detail) {
    console.log(`${cond ? 'ok' : 'not ok'} - ${desc}`);
    if (!cond && detail !== undefined)
        console.log('# ' + JSON.stringify(detail).replace(/\n/g, '\n# '));
}
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
async function until(cond, ms = 20000) {
    for (const end = Date.now() + ms; Date.now() < end; await sleep(50)) if (cond()) return true;
    return cond();
}
const cm = (name, v) => ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name, labels: { app: 'cn' } }, data: { v } });

// --- create and list ---
const ns = await core.createNamespace({ body: { metadata: { name: NS } } });
check(ns.metadata.name === NS && ns.status.phase === 'Active', 'createNamespace', ns.status);
const pod = await core.createNamespacedPod({
    namespace: NS,
    body: { metadata: { name: 'n1', labels: { app: 'cn' } },
            spec: { containers: [{ name: 'main', image: 'busybox', command: ['sh', '-c', 'echo hi'] }] } },
});
check(pod.metadata.uid && pod.status.phase === 'Pending' && pod.spec.restartPolicy === 'Always',
      'createNamespacedPod returns the stored pod with defaults', pod.status);
for (let i = 0; i < 5; i++) await core.createNamespacedConfigMap({ namespace: NS, body: cm(`c${i}`, 'a') });
const pods = await core.listNamespacedPod({ namespace: NS, labelSelector: 'app=cn' });
check(pods.items.map((p) => p.metadata.name).join() === 'n1' && pods.metadata.resourceVersion,
      'listNamespacedPod with a label selector', pods.items.map((p) => p.metadata.name));
let names = [], cont, pages = 0;
do {
    const page = await core.listNamespacedConfigMap({ namespace: NS, limit: 2, _continue: cont });
    names.push(...page.items.map((c) => c.metadata.name));
    cont = page.metadata._continue;
    pages++;
} while (cont);
check(names.join() === 'c0,c1,c2,c3,c4' && pages === 3, 'listNamespacedConfigMap paged with limit and _continue', names);

// --- patch ---
const patched = await core.patchNamespacedPod({ name: 'n1', namespace: NS, body: { metadata: { labels: { x: 'y' } } } },
    k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch));
check(patched.metadata.labels.x === 'y' && patched.metadata.labels.app === 'cn', 'patchNamespacedPod (merge patch)', patched.metadata.labels);
const jp = await core.patchNamespacedConfigMap({ name: 'c0', namespace: NS, body: [{ op: 'replace', path: '/data/v', value: 'b' }] },
    k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.JsonPatch));
check(jp.data.v === 'b', 'patchNamespacedConfigMap (JSON patch)', jp.data);
const sp = await core.patchNamespacedConfigMap({ name: 'c1', namespace: NS, body: { data: { w: 'z' } } },
    k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.StrategicMergePatch));
check(sp.data.v === 'a' && sp.data.w === 'z', 'patchNamespacedConfigMap (strategic merge patch)', sp.data);

// read-modify-replace: the client sends creationTimestamp back as a Date ("...:00.000Z")
const c3 = await core.readNamespacedConfigMap({ name: 'c3', namespace: NS });
c3.data = { v: 'replaced' };
const rep = await core.replaceNamespacedConfigMap({ name: 'c3', namespace: NS, body: c3 }).catch((e) => e);
check(rep.data && rep.data.v === 'replaced', 'replaceNamespacedConfigMap after a read', rep.body ?? rep.data);
const sec = await core.createNamespacedSecret({ namespace: NS, body: { metadata: { name: 's1' }, stringData: { k: 'v' } } });
check(sec.data && sec.data.k === 'dg==' && sec.stringData === undefined, 'createNamespacedSecret: stringData comes back as data', sec);

// --- logs (the .t file wrote the pod's CRI log) ---
execSync(process.env.WRITE_LOG);
const text = await core.readNamespacedPodLog({ name: 'n1', namespace: NS, container: 'main' });
check(text === 'line one\nline two\n', 'readNamespacedPodLog', text);
const tail = await core.readNamespacedPodLog({ name: 'n1', namespace: NS, tailLines: 1 });
check(tail === 'line two\n', 'readNamespacedPodLog with tailLines', tail);
let streamed = '';
const sink = new Writable({ write(chunk, _e, cb) { streamed += chunk; cb(); } });
await new k8s.Log(kc).log(NS, 'n1', 'main', sink, { follow: false, timestamps: true });
check(await until(() => /^2020-01-01T12:00:00(\.\d+)?Z line one\n/.test(streamed)), 'Log.log with timestamps', streamed);

// --- watch to completion: the server ends it at timeoutSeconds ---
const start = await core.listNamespacedConfigMap({ namespace: NS });
const seen = [];
let doneErr = 'not called';
await new k8s.Watch(kc).watch(`/api/v1/namespaces/${NS}/configmaps`,
    { resourceVersion: start.metadata.resourceVersion, timeoutSeconds: 3 },
    (type, obj) => seen.push(`${type} ${obj.metadata.name}`), (err) => { doneErr = err; });
await core.createNamespacedConfigMap({ namespace: NS, body: cm('w1', 'a') });
await core.patchNamespacedConfigMap({ name: 'w1', namespace: NS, body: { data: { v: 'b' } } },
    k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch));
await core.deleteNamespacedConfigMap({ name: 'w1', namespace: NS });
check(await until(() => seen.length >= 3), 'Watch delivers the changes', seen);
check(seen.join() === 'ADDED w1,MODIFIED w1,DELETED w1', 'ADDED, MODIFIED, DELETED in order', seen);
check(await until(() => doneErr !== 'not called', 15000) && !doneErr, 'the watch runs to completion: done() without an error', String(doneErr));

// --- informer, across a daemon restart ---
const path = `/api/v1/namespaces/${NS}/configmaps`;
const inf = k8s.makeInformer(kc, path, () => core.listNamespacedConfigMap({ namespace: NS }));
const adds = new Set(), updates = [], deletes = [];
let errors = 0;
inf.on('add', (o) => adds.add(o.metadata.name));
inf.on('update', (o) => updates.push(o.metadata.name));
inf.on('delete', (o) => deletes.push(o.metadata.name));
inf.on('error', () => { errors++; setTimeout(() => inf.start(), 300); }); // the documented way to reconnect
await inf.start();
check(await until(() => ['c0', 'c1', 'c2', 'c3', 'c4'].every((n) => adds.has(n))), 'informer: the initial list as add events', [...adds]);
await core.createNamespacedConfigMap({ namespace: NS, body: cm('i1', 'a') });
check(await until(() => adds.has('i1')), 'informer: a new object', [...adds]);
execSync(process.env.RESTART);
await core.createNamespacedConfigMap({ namespace: NS, body: cm('i2', 'a') });
await core.patchNamespacedConfigMap({ name: 'c2', namespace: NS, body: { data: { v: 'after' } } },
    k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch));
check(await until(() => adds.has('i2'), 30000), 'informer: reconnects after the daemon restarts and sees what was created', { adds: [...adds], errors });
check(await until(() => updates.includes('c2')) && inf.get('c2', NS).data.v === 'after', 'informer: ... and what changed; its cache is current', updates);
await core.deleteNamespacedConfigMap({ name: 'i1', namespace: NS });
check(await until(() => deletes.includes('i1')), 'informer: delete events', deletes);
// stopped while more changes pass than the change log keeps (--watch-log 20):
// its watch from the old resourceVersion gets 410 Expired, and it lists again
await inf.stop();
for (let i = 0; i < 90; i++)
    await core.patchNamespacedConfigMap({ name: 'c4', namespace: NS, body: { data: { v: `n${i}` } } },
        k8s.setHeaderOptions('Content-Type', k8s.PatchStrategy.MergePatch));
await core.createNamespacedConfigMap({ namespace: NS, body: cm('i3', 'a') });
await inf.start();
check(await until(() => adds.has('i3') && inf.get('c4', NS)?.data?.v === 'n89', 30000),
      'informer: after 410 Expired it lists again and is current', { adds: [...adds], c4: inf.get('c4', NS)?.data });
await inf.stop();

// --- delete and errors ---
const del = await core.deleteNamespacedPod({ name: 'n1', namespace: NS });
check(del.metadata.name === 'n1', 'deleteNamespacedPod returns the pod', del.metadata);
try {
    await core.readNamespacedPod({ name: 'n1', namespace: NS });
    check(false, 'read after delete throws');
} catch (e) {
    const body = typeof e.body === 'string' ? JSON.parse(e.body) : e.body;
    check(e.code === 404 && body.reason === 'NotFound' && body.message === 'pods "n1" not found', 'read after delete: ApiException 404 with the Status', { code: e.code, body });
}
try {
    await core.createNamespacedConfigMap({ namespace: NS, body: cm('c0', 'a') });
    check(false, 'a duplicate create throws');
} catch (e) {
    const body = typeof e.body === 'string' ? JSON.parse(e.body) : e.body;
    check(e.code === 409 && body.reason === 'AlreadyExists', 'a duplicate create: 409 AlreadyExists', { code: e.code, body });
}
const st = await core.deleteNamespace({ name: NS });
check(st.status.phase === 'Terminating', 'deleteNamespace: the namespace is Terminating', st.status);
let gone = false;
for (const end = Date.now() + 20000; !gone && Date.now() < end; await sleep(100)) {
    try { await core.readNamespace({ name: NS }); } catch (e) { gone = e.code === 404; }
}
check(gone, 'then it is gone');
console.log('# end');
process.exit(0); // undici's keep-alive pool would hold the event loop open
