"""Kernel-urile notebook-urilor din teste, pornite calde: copii ale unui proces care a importat deja torch.

Fiecare notebook executat de nbval (și fiecare soluție) primește un kernel nou, un interpretor
Python care importă din nou torch, Dynamo și Inductor: 4–5 s de procesor pe kernel, la fiecare
din cele peste 20 de notebook-uri ale unei rulări. Aici, kernel-ul e o copie (`fork`) a unui
proces care a făcut deja importurile acestea: serverul de copii al lui `multiprocessing`
(`forkserver`), pornit o dată în fiecare proces de teste, cu importurile date ca preîncărcare.

Ce rămâne ca la un kernel pornit obișnuit: comanda (`python -m ipykernel_launcher -f ...`),
dosarul de lucru, mediul cerut, `sys.path`-ul unui interpretor nou (calculat o dată, într-un
interpretor nou), sesiunea proprie (semnalele lui jupyter_client ajung la grupul kernel-ului),
ieșirile standard cerute și codul de ieșire. Ce se schimbă: modulele preîncărcate sunt deja în
`sys.modules` la prima celulă. Nimic din ce se importă aici nu se leagă de IPython (ipywidgets,
matplotlib se importă abia în kernel).

`conftest.py` pune `lanseaza` în locul funcției cu care jupyter_client pornește kernel-urile locale,
doar pe Linux, fără GPU, cu un singur fir OpenMP (procesul copiat nu are alte fire), și doar dacă
`CURS_NUCLEE_CALDE` nu e `0`. O cerere pe care copia n-ar respecta-o întocmai (altă comandă, alt
mediu decât cel cu care a pornit serverul, în afară de variabilele proprii fiecărui kernel) pornește
kernel-ul obișnuit. Cursantul nu trece niciodată pe aici: JupyterLab și `make validare` pornesc
kernel-uri obișnuite.
"""

import atexit
import json
import multiprocessing
import operator
import os
import runpy
import signal
import subprocess
import sys
import threading

#: Ce importă serverul de copii o dată, înaintea oricărui kernel (ce costă la pornirea unui kernel).
PREINCARCATE = ("torch", "torch._dynamo", "torch._inductor.compile_fx")
#: Variabilele de mediu pe care importurile preîncărcate nu le citesc, deci pot diferi de ale serverului:
#: cele proprii fiecărui kernel sau test și dosarele de cache, citite de Inductor abia la compilare (el
#: însuși scrie `TORCHINDUCTOR_CACHE_DIR` în mediul procesului de teste la prima compilare).
VARIABILE_PROPRII = frozenset({"JPY_PARENT_PID", "JPY_SESSION_NAME", "PYTEST_CURRENT_TEST",
                               "TORCHINDUCTOR_CACHE_DIR", "TRITON_CACHE_DIR"})
#: La fel, variabilele interne pe care Inductor le scrie singur în mediu cât rulează (de exemplu
#: `_TORCHINDUCTOR_PYOBJECT_TENSOR_DATA_PTR`, când încarcă un modul C++ compilat).
PREFIXE_PROPRII = ("_TORCHINDUCTOR_",)
#: Cât așteaptă pornirea unei copii (până își face sesiunea proprie).
LIMITA_PORNIRE_S = 60.0

_NUME_COPIE = "__nucleu_cald__"
_blocare = threading.Lock()
#: Mediul serverului de copii (cel din clipa încărcării, înaintea testelor), apoi contextul și `sys.path`-ul.
_stare: dict = {"mediu": dict(os.environ)}
_copii: list = []


class ProcesCald:
    """Kernel-ul copiat, cu partea din `subprocess.Popen` pe care o folosește jupyter_client: `pid`,
    `returncode`, `poll`, `wait`, `send_signal`, `terminate`, `kill` (ieșirile standard sunt ale
    kernel-ului, nu țevi spre procesul de teste)."""

    stdin = stdout = stderr = None

    def __init__(self, proces: multiprocessing.Process, comanda: list[str]):
        self._proces = proces
        self.args = comanda
        self.pid = proces.pid
        self.returncode = None

    def poll(self):
        if self.returncode is None:
            self.returncode = self._proces.exitcode
        return self.returncode

    def wait(self, timeout=None):
        self._proces.join(timeout)
        if self.poll() is None:
            raise subprocess.TimeoutExpired(self.args, timeout)
        return self.returncode

    def send_signal(self, semnal):
        if self.poll() is None:
            os.kill(self.pid, semnal)

    def terminate(self):
        self.send_signal(signal.SIGTERM)

    def kill(self):
        self.send_signal(signal.SIGKILL)


def _cale_interpretor_nou(mediu: dict) -> list[str]:
    """`sys.path`-ul unui interpretor nou cu mediul dat, fără prima intrare (dosarul de lucru)."""
    iesire = subprocess.run([sys.executable, "-c", "import json, sys; print(json.dumps(sys.path[1:]))"],
                            env=mediu, capture_output=True, text=True, check=True, timeout=60).stdout
    return json.loads(iesire)


def _fara_proprii(mediu: dict) -> dict:
    return {k: v for k, v in mediu.items() if k not in VARIABILE_PROPRII and not k.startswith(PREFIXE_PROPRII)}


def _se_poate_copia(comanda: list[str], mediu: dict) -> bool:
    """Comanda e cea a unui kernel IPython din interpretorul acesta, iar mediul cerut e cel al
    serverului de copii (mediul din clipa încărcării modulului), în afara variabilelor proprii
    fiecărui kernel."""
    if len(comanda) < 3 or comanda[1:3] != ["-m", "ipykernel_launcher"]:
        return False
    if os.path.realpath(comanda[0]) != os.path.realpath(sys.executable):
        return False
    return _fara_proprii(mediu) == _fara_proprii(_stare["mediu"])


def _opreste_copiile():
    """La ieșirea procesului de teste: kernel-urile copiate încă pornite se opresc (altfel
    `multiprocessing` le-ar aștepta la ieșire)."""
    for proces in _copii:
        if proces.exitcode is None:
            try:
                os.killpg(proces.pid, signal.SIGKILL)
            except OSError:
                pass
            proces.join(5)


def _contextul():
    """Contextul `forkserver`, cu preîncărcarea cerută și `sys.path`-ul unui interpretor nou. Serverul
    pornește la prima cerere, cu mediul din clipa încărcării modulului (cel al notebook-urilor), chiar
    dacă un test îl schimbă chiar atunci."""
    if "context" not in _stare:
        context = multiprocessing.get_context("forkserver")
        context.set_forkserver_preload(list(PREINCARCATE))
        acum = dict(os.environ)
        os.environ.clear()
        os.environ.update(_stare["mediu"])
        try:
            from multiprocessing import forkserver

            forkserver.ensure_running()
        finally:
            os.environ.clear()
            os.environ.update(acum)
        _stare["cale"] = _cale_interpretor_nou(_stare["mediu"])
        _stare["context"] = context
        atexit.register(_opreste_copiile)
    return _stare["context"]


class _Descriptor:
    """Un descriptor de fișier dat copiei: `multiprocessing` îl trimite serverului odată cu cererea, iar
    în copie devine numărul descriptorului moștenit (fără vreun import al modulului acesta acolo)."""

    def __init__(self, flux, implicit: int):
        # None: ieșirea procesului de teste din clipa lansării, ca la Popen
        self.fd = implicit if flux is None else flux if isinstance(flux, int) else flux.fileno()

    def __reduce__(self):
        from multiprocessing.reduction import DupFd

        return operator.methodcaller("detach"), (DupFd(self.fd),)


def _porneste_copia(comanda: list[str], cwd, mediu: dict, stdout, stderr):
    """Cere serverului o copie care va rula kernel-ul; întoarce procesul și capătul pe care copia
    anunță că și-a făcut sesiunea proprie."""
    context = _contextul()
    primit, trimis = context.Pipe(duplex=False)
    cerere = {
        "argv": ["ipykernel_launcher", *comanda[3:]],
        "dosar": os.path.abspath(cwd or os.getcwd()),
        "mediu": mediu,
        "cale": _stare["cale"],
        "iesire": _Descriptor(stdout, 1),
        "erori": _Descriptor(stderr, 2),
        "semnal": trimis,
    }
    proces = context.Process(target=runpy.run_path, args=(os.path.abspath(__file__), {"CERERE": cerere}, _NUME_COPIE),
                             name="kernel-cald")
    proces.start()
    trimis.close()
    _copii[:] = [p for p in _copii if p.exitcode is None] + [proces]
    return proces, primit


def lanseaza(comanda: list[str], stdin=None, stdout=None, stderr=None, env=None, independent=False, cwd=None,
             lansare_obisnuita=None, **altele):
    """În locul lui `jupyter_client.launcher.launch_kernel`: același contract, kernel-ul copiat din
    serverul cald când cererea se poate respecta întocmai, altfel `lansare_obisnuita`."""
    if lansare_obisnuita is None:
        from jupyter_client.launcher import launch_kernel as lansare_obisnuita
    mediu = dict(os.environ if env is None else env)
    if not independent:
        mediu["JPY_PARENT_PID"] = str(os.getpid())
    with _blocare:
        potrivit = not altele and stdin is None and _se_poate_copia(comanda, mediu)
        if potrivit:
            proces, primit = _porneste_copia(comanda, cwd, mediu, stdout, stderr)
    if not potrivit:
        return lansare_obisnuita(comanda, stdin=stdin, stdout=stdout, stderr=stderr, env=env,
                                 independent=independent, cwd=cwd, **altele)
    # Copia își face întâi sesiunea proprie: jupyter_client îi cere grupul imediat după pornire.
    if not primit.poll(LIMITA_PORNIRE_S):
        proces.kill()
        proces.join(5)
        raise RuntimeError(f"Kernel-ul copiat n-a pornit în {LIMITA_PORNIRE_S:.0f} s (cod {proces.exitcode}).")
    primit.close()
    return ProcesCald(proces, comanda)


def _porneste_kernelul(cerere: dict) -> None:
    """Corpul copiei: sesiunea proprie, ieșirile cerute, dosarul, mediul, `sys.path`, apoi
    `python -m ipykernel_launcher` ca într-un interpretor nou."""
    os.setsid()
    from multiprocessing import process

    # Pentru bibliotecile din kernel (și pentru procesele pornite de ele), kernel-ul e un proces principal.
    eu = process.current_process()
    eu._name, eu._identity, eu._parent_pid = "MainProcess", (), None
    process._parent_process = None
    process._children = set()
    cerere["semnal"].send(os.getpid())
    cerere["semnal"].close()
    for descriptor, tinta in ((cerere["iesire"], 1), (cerere["erori"], 2)):
        os.dup2(descriptor, tinta)
        os.close(descriptor)
    os.chdir(cerere["dosar"])
    os.environ.clear()
    os.environ.update(cerere["mediu"])
    sys.path[:] = [cerere["dosar"], *cerere["cale"]]
    sys.argv[:] = cerere["argv"]
    runpy.run_module("ipykernel_launcher", run_name="__main__", alter_sys=True)


if __name__ == _NUME_COPIE:
    _porneste_kernelul(CERERE)  # noqa: F821 (dat de `runpy.run_path`)
