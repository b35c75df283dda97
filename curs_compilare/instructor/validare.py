"""Validarea cursului pe mașina curentă — comanda instructorului (`make validare`).

Execută fiecare notebook din `notebooks/` și `solutions/` (pe GPU, dacă există unul) și scrie
un raport în `build/validare/`:

- `raport.md` — mașina, versiunile, starea și durata fiecărui notebook, cifrele-cheie;
- `rezultate.json` — aceleași date, ca să le poți păstra drept rezultate de referință;
- `durate.png` — durata fiecărui notebook;
- `executate/` — notebook-urile executate, cu ieșirile lor, de răsfoit.

    python -m curs_compilare.instructor.validare [--iesire build/validare] [--limita-celula 1200]
                                      [--completeaza rezultate.json] [NOTEBOOK ...]

Cu `--completeaza`, rezultatele notebook-urilor executate acum înlocuiesc, într-un raport mai
vechi, doar rezultatele acelorași notebook-uri; restul raportului vechi rămâne (de exemplu,
după ce ai adăugat un capitol, îl validezi doar pe el și completezi rezultatele de referință).

În textul tipărit de fiecare notebook executat se caută și concluziile care se contrazic singure
(„de 0,94 ori mai rapid”, vezi `concluzii.contradictii`) și numerele scrise altfel decât cere
cursul („2.63×”, „32 kernel-uri”, vezi `cifre.probleme_de_format`): un notebook cu așa ceva e
socotit eșuat.

Cifrele măsurate de un script, nu de un notebook (de exemplu `benchmarks/capitolul06.py`, rulat
cu variabila de mediu `CURS_FISIER_CIFRE=cifre.jsonl`, în care `cifre.inregistreaza` scrie câte o
cifră pe rând), se adaugă unui raport existent, cu sursa lor:

    python -m curs_compilare.instructor.validare --adauga-cifre cifre.jsonl \
        --sursa "benchmarks/capitolul06.py --max-autotune" \
        --notebook notebooks/06_modelul_intreg.ipynb --rezultate assets/referinta_h200/rezultate.json

Cifrele cu aceeași cheie sunt înlocuite; fiecare cifră adăugată ține minte sursa (câmpul
`sursa`) și, cu `--notebook`, notebook-ul care o arată. `raport.md`, de lângă `rezultate.json`,
se scrie din nou.

Două rapoarte, de pe două rulări (de exemplu pe două mașini de același fel), se compară cifră
cu cifră:

    python -m curs_compilare.instructor.validare --compara build/validare_1/rezultate.json build/validare_2/rezultate.json

Cum se compară o cifră depinde de unitatea ei (vezi `fel_comparatie`):

- **procentele** („%”: o ocupare, un procent din plafon, diferența dintre doi pași, care poate
  fi aproape de zero sau își poate schimba semnul) se compară prin diferența lor, în puncte
  procentuale: sunt „la fel” dacă diferă cu cel mult 5 puncte (`--prag-puncte`). Un raport
  între −0,5% și +0,19% n-ar avea sens;
- **numărătorile mici** (sub 10 kernel-uri, grafuri, recompilări…) trebuie să fie egale: 1 față
  de 2 kernel-uri e o diferență de un kernel, nu „de 2 ori”;
- **restul** (timpi, lățimi de bandă, accelerări, numărători mari) se compară prin raportul
  dintre valoarea mai mare și cea mai mică: sunt „la fel” dacă diferă cu cel mult 15%
  (`--prag`). Două valori nule sunt la fel; o valoare nulă lângă una nenulă sau două valori de
  semne opuse diferă.

O cifră înregistrată cu un prag absolut propriu (`cifre.inregistreaza(..., prag_absolut=...)`,
de exemplu o diferență între două pierderi, fără unitate) se compară prin diferența absolută,
cu pragul ei.

Cifrele care depind de procesorul mașinii sunt doar marcate când trec de prag. Comanda se
termină cu cod de eroare dacă vreo cifră care nu depinde de procesor diferă peste prag.
"""

from __future__ import annotations

import argparse
import contextlib
import datetime as dt
import json
import math
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from unittest import mock
from pathlib import Path

from ..cifre import (
    SUBSTANTIVE_NUMARATE,
    VARIABILA_FISIER,
    cu_substantiv,
    cu_unitate,
    descrie_cifra,
    format_numar,
    probleme_de_format,
)
from ..concluzii import contradictii, text_iesiri
from ..mediu import detecteaza_mediul
from ..masurare_compilare import cache_gol
from .profil_colab import MemorieGazda, ProfilColab

#: Cât pot diferi, cel mult, două rulări ale unei cifre comparate prin raport (raportul dintre
#: valoarea mai mare și cea mai mică: cel mult 1,15).
PRAG_DIFERENTA = 0.15

#: Cât pot diferi, cel mult, două rulări ale unei cifre în procente, în puncte procentuale
#: (98% și 94% sunt la fel; −0,5% și +0,19% la fel).
PRAG_PUNCTE_PROCENTUALE = 5.0

#: Unitățile cifrelor comparate prin diferența lor, nu prin raport: procentele (o ocupare, un
#: procent din plafon, diferența dintre doi pași, care poate fi aproape de zero sau negativă).
UNITATI_COMPARATE_PRIN_DIFERENTA = ("%",)

#: Numărătorile mai mici decât atât (kernel-uri, grafuri, recompilări) se compară exact: 1 față
#: de 2 kernel-uri e o diferență de un kernel, nu un raport de 2×.
PRAG_NUMARATOARE_MICA = 10

#: Unitățile care numără lucruri (nu timpi scriși în cuvinte, ca „secunde”).
UNITATI_NUMARATE = tuple(u for u in SUBSTANTIVE_NUMARATE if u not in ("secunde", "minute", "ori")) + ("jetoane",)


def _text_tiparit(nb) -> str:
    """Tot textul tipărit de celulele unui notebook executat."""
    return "\n".join(text_iesiri(celula.get("outputs", [])) for celula in nb.cells)


def nvidia_smi(*argumente: str) -> list[str] | None:
    """Rândurile nevide ale `nvidia-smi ARGUMENTE --format=csv,noheader,nounits`, sau None dacă
    `nvidia-smi` lipsește ori eșuează."""
    try:
        iesire = subprocess.run(
            ["nvidia-smi", *argumente, "--format=csv,noheader,nounits"],
            capture_output=True, text=True, timeout=10,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    if iesire.returncode != 0:
        return None
    return [r.strip() for r in iesire.stdout.splitlines() if r.strip()]


#: Cum s-a măsurat memoria GPU a unui notebook (`memorie_gpu_masurata_pe`): pe procesele lui sau,
#: când `nvidia-smi` nu le vede după PID, pe tot GPU-ul (atunci e a notebook-ului doar dacă
#: rulează singur).
MEMORIE_PE_PROCESE = "procesele notebook-ului"
MEMORIE_PE_TOT_GPU = "tot GPU-ul, peste nivelul de dinainte"


class _MemorieGPU:
    """Urmărește, cât rulează un notebook, memoria GPU ocupată de procesele lui (kernel-ul și
    procesele pornite de el), din `nvidia-smi`, la fiecare jumătate de secundă, și ține maximul
    (MiB). Dacă `nvidia-smi` nu vede procesele după PID (într-un container, de pildă), ia
    memoria ocupată pe tot GPU-ul, peste nivelul de dinaintea notebook-ului."""

    PAUZA_S = 0.5

    def __init__(self):
        self.maxim_mib: float | None = None
        self.fel: str | None = None
        self._pid = None
        self._opreste = threading.Event()
        self._fir = None
        self._nivel_initial = None

    _nvidia_smi = staticmethod(nvidia_smi)

    def _ocupat_pe_gpu(self) -> float | None:
        randuri = self._nvidia_smi("--query-gpu=memory.used", "-i", "0")
        try:
            return float(randuri[0]) if randuri else None
        except ValueError:
            return None

    def _ocupat_de_notebook(self) -> float | None:
        if self._pid is None:
            return None
        try:
            import psutil

            pids = {self._pid} | {p.pid for p in psutil.Process(self._pid).children(recursive=True)}
        except Exception:
            pids = {self._pid}
        randuri = self._nvidia_smi("--query-compute-apps=pid,used_memory") or []
        total, gasite = 0.0, False
        for rand in randuri:
            parti = [x.strip() for x in rand.split(",")]
            if len(parti) == 2 and parti[0].isdigit() and int(parti[0]) in pids:
                with contextlib.suppress(ValueError):
                    total += float(parti[1])
                    gasite = True
        return total if gasite else None

    def porneste(self) -> "_MemorieGPU":
        if shutil.which("nvidia-smi") is None:
            return self
        self._nivel_initial = self._ocupat_pe_gpu()
        self._fir = threading.Thread(target=self._urmareste, daemon=True)
        self._fir.start()
        return self

    def pid_kernel(self, pid: int) -> None:
        self._pid = pid

    def _urmareste(self) -> None:
        while not self._opreste.wait(self.PAUZA_S):
            pe_procese = self._ocupat_de_notebook()
            if pe_procese is not None:
                valoare, fel = pe_procese, MEMORIE_PE_PROCESE
            else:
                ocupat = self._ocupat_pe_gpu()
                if ocupat is None or self._nivel_initial is None:
                    continue
                valoare, fel = max(0.0, ocupat - self._nivel_initial), MEMORIE_PE_TOT_GPU
            if self.maxim_mib is None or valoare > self.maxim_mib:
                self.maxim_mib, self.fel = valoare, fel if self.fel in (None, fel) else self.fel

    def opreste(self) -> None:
        self._opreste.set()
        if self._fir is not None:
            self._fir.join(timeout=15)


@dataclass
class RepetitieColab:
    """Drumul celulei de pregătire pe Colab, repetat pe o mașină oarecare: un modul
    `google.colab` fals, iar în locul adresei publice și al dosarului `/content/curs`, o adresă
    de clonare locală și un dosar temporar. Prima celulă de pregătire clonează cursul și îi
    instalează pachetul cu pip, exact ca pe Colab; următoarele găsesc clona."""

    adresa: str
    dosar: str

    def rescrie(self, sursa: str) -> str:
        """Celula de pregătire, cu modulul fals înainte și cu adresa și dosarul înlocuite."""
        from .depozit import ADRESA

        if ADRESA not in sursa or "/content/curs" not in sursa:
            raise ValueError("celula de pregătire nu mai are adresa publică și dosarul /content/curs")
        return (
            "import sys, types  # repetiția drumului de pe Colab: un modul google.colab fals\n"
            'sys.modules.setdefault("google.colab", types.ModuleType("google.colab"))\n'
            + sursa.replace(ADRESA, self.adresa).replace("/content/curs", self.dosar)
        )

    def runtime_nou(self, dosar: Path) -> "RepetitieColab":
        """Aceeași repetiție pentru un runtime Colab nou, în `dosar`: clona cursului nu există
        încă acolo, deci celula de pregătire a primului notebook clonează și instalează din nou
        (ca pe Colab după „Disconnect and delete runtime”)."""
        return RepetitieColab(adresa=self.adresa, dosar=str((Path(dosar) / "content" / "curs").resolve()))

    def pregateste_notebook(self, nb) -> int:
        """Rescrie celulele de pregătire ale notebook-ului (în memorie); întoarce câte a rescris."""
        from .depozit import MARCAJ_PREGATIRE

        rescrise = 0
        for celula in nb.cells:
            if celula.cell_type == "code" and celula.source.startswith(MARCAJ_PREGATIRE):
                celula.source = self.rescrie(celula.source)
                rescrise += 1
        return rescrise


def depozit_local_pentru_colab(radacina: Path, dosar: Path) -> RepetitieColab:
    """Face, în `dosar`, un depozit git cu fișierele cursului din `radacina` (fără mediul
    virtual, `build/` și cache-uri) și întoarce repetiția Colab care îl clonează, cu
    `file://`, în `dosar/content/curs`."""
    sursa = dosar / "depozit"
    ignorate = shutil.ignore_patterns(".git", ".venv", ".whl", "build", "__pycache__", ".ipynb_checkpoints", "*.egg-info")
    shutil.copytree(radacina, sursa, ignore=ignorate)
    for comanda in (
        ["git", "init", "-q"],
        ["git", "add", "-A"],
        ["git", "-c", "user.name=curs", "-c", "user.email=curs@localhost", "commit", "-q", "-m", "cursul"],
    ):
        subprocess.run(comanda, cwd=sursa, check=True, capture_output=True)
    return RepetitieColab(adresa=sursa.resolve().as_uri(), dosar=str((dosar / "content" / "curs").resolve()))


def instalarea_pachetului() -> dict | None:
    """Cum e instalat acum pachetul cursului în mediul Python curent: None dacă nu e instalat,
    altfel `{"editabil": bool, "dosar": ...}` (dosarul sursei, la o instalare editabilă)."""
    from importlib import metadata

    # Doar distribuțiile instalate cu pip (au INSTALLER): un `curs_compilare.egg-info` din dosarul
    # cursului, lăsat de o instalare editabilă, e și el găsit, dar nu spune cum e instalat.
    instalate = [d for d in metadata.distributions(name="curs-compilare") if d.read_text("INSTALLER")]
    if not instalate:
        return None
    distributie = instalate[0]
    try:
        adresa = json.loads(distributie.read_text("direct_url.json") or "{}")
    except (OSError, ValueError):
        adresa = {}
    editabil = bool(adresa.get("dir_info", {}).get("editable"))
    dosar = adresa.get("url", "").removeprefix("file://") if editabil else None
    return {"editabil": editabil, "dosar": dosar}


@contextlib.contextmanager
def instalarea_pastrata():
    """Repetiția drumului de pe Colab instalează pachetul cu pip în mediul curent, ca pe Colab,
    peste instalarea de până atunci. La ieșirea din bloc, instalarea revine cum era: editabilă
    (ca după `make lab`), cu sursa în același dosar, sau deloc."""
    inainte = instalarea_pachetului()
    try:
        yield inainte
    finally:
        dupa = instalarea_pachetului()
        if inainte is None and dupa is not None:
            comanda = ["uninstall", "-y", "-q", "curs-compilare"]
        elif inainte and inainte["editabil"] and inainte["dosar"] and dupa != inainte:
            comanda = ["install", "-q", "--no-deps", "--no-build-isolation", "-e", inainte["dosar"]]
        else:
            comanda = None
        if comanda:
            rezultat = subprocess.run([sys.executable, "-m", "pip", *comanda], capture_output=True, text=True)
            if rezultat.returncode != 0:
                print("Nu am putut reface instalarea pachetului de dinainte de repetiția drumului de pe Colab "
                      f"(`pip {' '.join(comanda)}`); rulează `make lab`.", flush=True)


def _prima_linie_eroare(exceptie) -> str | None:
    """Rândul care spune ce s-a întâmplat („ValueError: …”), nu tot traceback-ul."""
    nume, valoare = getattr(exceptie, "ename", None), getattr(exceptie, "evalue", None)
    if nume:
        return f"{nume}: {valoare}" if valoare else str(nume)
    randuri = [r for r in str(exceptie).strip().splitlines() if r.strip()]
    return randuri[-1].strip() if randuri else None


def notebookuri_cursului(radacina: str | Path, solutii: bool = False) -> list[Path]:
    """Notebook-urile capitolelor din `radacina` (și ale soluțiilor, cu `solutii=True`), în ordine."""
    radacina = Path(radacina)
    cai = sorted((radacina / "notebooks").glob("*.ipynb"))
    if solutii:
        cai += sorted((radacina / "solutions").glob("*.ipynb"))
    return cai


#: Dosarul care conține pachetul cursului (`curs_compilare/`), cel importat de acest proces.
DOSAR_PACHET = Path(__file__).resolve().parents[2]


@contextlib.contextmanager
def _pachetul_vizibil_in_kernel():
    """Pune dosarul pachetului cursului în fața lui PYTHONPATH cât rulează kernel-ul: notebook-ul
    importă același `curs_compilare` ca procesul care îl execută, chiar dacă pachetul nu e instalat
    (de exemplu `python -m curs_compilare.instructor.verificare_rapida` pornit din dosarul cursului, pe o mașină
    pe care n-ai rulat `pip install`; kernel-ul pornește în `notebooks/`, unde pachetul nu se vede)."""
    vechi = os.environ.get("PYTHONPATH")
    with mock.patch.dict(os.environ, {"PYTHONPATH": os.pathsep.join([str(DOSAR_PACHET), *([vechi] if vechi else [])])}):
        yield


#: Codul celulei ascunse pusă la începutul unui notebook pe o mașină cu GPU NVIDIA: un fir care
#: citește, la fiecare 0,2 s, memoria GPU rezervată de alocatorul PyTorch în kernel (abia după ce
#: notebook-ul a importat torch și a pornit CUDA; firul nu importă nimic). Măsoară doar procesul
#: kernel-ului, deci rămâne a notebook-ului și când mai multe rulează deodată pe același GPU;
#: contextul CUDA (câteva sute de MiB) nu intră.
_COD_MEMORIE_PYTORCH_PORNIRE = """\
def _curs_urmareste_memoria_gpu():
    import sys, threading, time
    stare = {"maxim": None}
    def urmareste():
        while True:
            t = sys.modules.get("torch")
            try:
                if t is not None and not getattr(t.__spec__, "_initializing", False) and t.cuda.is_initialized():
                    v = max(t.cuda.memory_reserved(0), t.cuda.max_memory_reserved(0))
                    if stare["maxim"] is None or v > stare["maxim"]:
                        stare["maxim"] = v
            except Exception:
                pass
            time.sleep(0.2)
    threading.Thread(target=urmareste, daemon=True, name="curs-memorie-gpu").start()
    return stare
_curs_memorie_gpu = _curs_urmareste_memoria_gpu()
del _curs_urmareste_memoria_gpu
"""

#: Celula ascunsă de la sfârșit: tipărește maximul citit de fir (octeți), după un marcaj.
MARCAJ_MEMORIE_PYTORCH = "__curs_memorie_gpu_pytorch__"
_COD_MEMORIE_PYTORCH_CITIRE = f"""\
import sys as _curs_sys
_t = _curs_sys.modules.get("torch")
if _t is not None and _t.cuda.is_initialized():
    _v = max(_t.cuda.memory_reserved(0), _t.cuda.max_memory_reserved(0), _curs_memorie_gpu["maxim"] or 0)
    _curs_memorie_gpu["maxim"] = _v
print("{MARCAJ_MEMORIE_PYTORCH}", _curs_memorie_gpu["maxim"])
"""


def _adauga_celulele_de_memorie(nb) -> None:
    """Pune celulele ascunse ale măsurării memoriei PyTorch la începutul și la sfârșitul lui `nb`."""
    import nbformat

    nb.cells.insert(0, nbformat.v4.new_code_cell(_COD_MEMORIE_PYTORCH_PORNIRE, metadata={"curs_ascunsa": True}))
    nb.cells.append(nbformat.v4.new_code_cell(_COD_MEMORIE_PYTORCH_CITIRE, metadata={"curs_ascunsa": True}))


def _scoate_celulele_de_memorie(nb) -> float | None:
    """Scoate din `nb` celulele puse de `_adauga_celulele_de_memorie`, renumerotează celulele
    rămase (ca și cum celulele ascunse n-ar fi rulat) și întoarce maximul memoriei GPU rezervate
    de PyTorch, în MiB (None: notebook-ul n-a pornit CUDA, a eșuat înainte de sfârșit, sau fără
    celule ascunse)."""
    maxim = None
    pastrate = []
    for celula in nb.cells:
        if not celula.get("metadata", {}).get("curs_ascunsa"):
            pastrate.append(celula)
            continue
        for rand in text_iesiri(celula.get("outputs", []), doar_stdout=True).splitlines():
            parti = rand.split()
            if len(parti) == 2 and parti[0] == MARCAJ_MEMORIE_PYTORCH and parti[1] != "None":
                with contextlib.suppress(ValueError):
                    maxim = float(parti[1]) / 2**20
    if len(pastrate) != len(nb.cells):
        nb.cells = pastrate
        for celula in nb.cells:
            if celula.cell_type != "code":
                continue
            if isinstance(celula.get("execution_count"), int) and celula.execution_count > 1:
                celula.execution_count -= 1
            for iesire in celula.get("outputs", []):
                if isinstance(iesire.get("execution_count"), int) and iesire["execution_count"] > 1:
                    iesire["execution_count"] -= 1
    return maxim


def _legatura_kernelului():
    """Configurația prin care `executa_notebook` vorbește cu kernel-ul și dosarul ei (sau None).
    Pe Linux și macOS, kernel-ul ascultă pe socluri Unix (`transport="ipc"`), într-un dosar nou
    pentru fiecare notebook, nu pe porturi TCP: porturile le alege procesul care pornește kernel-ul,
    iar kernel-ul le deschide abia după ce pornește, așa că, atunci când mai multe notebook-uri
    pornesc deodată (`verificare_rapida --paralel`, valurile profilului Colab), altcineva putea
    ocupa între timp un port ales („Address already in use”), iar notebook-ul pica fără vina lui."""
    from traitlets.config import Config

    config = Config()
    if os.name != "posix":
        return config, None
    dosar = tempfile.mkdtemp(prefix="kernel_")
    config.KernelManager.transport = "ipc"
    config.KernelManager.ip = os.path.join(dosar, "k")
    return config, dosar


def executa_notebook(
    cale: Path,
    dosar_executate: Path,
    limita_celula: int = 1200,
    limita_notebook: float | None = None,
    colab: RepetitieColab | None = None,
    limita_ram_mib: float | None = None,
    masoara_memoria_pytorch: bool | None = None,
) -> dict:
    """Execută un notebook într-un kernel nou și întoarce rezultatul: `trecut`, `secunde`,
    `eroare` (ultimele rânduri ale erorii), `prima_linie_eroare`, `cifre` (cele înregistrate cu
    `cifre.inregistreaza`), `memorie_ram_maxima_mib` (memoria RAM a kernel-ului și a proceselor
    lui, vezi `profil_colab.MemorieGazda`), `secunde_pregatire` (cât a durat celula de pregătire,
    dacă notebook-ul are una) și, pe un GPU NVIDIA, `memorie_gpu_maxima_mib` (vezi `_MemorieGPU`)
    și `memorie_gpu_pytorch_maxima_mib` (memoria rezervată de alocatorul PyTorch în kernel, citită
    de o celulă ascunsă pusă la început și la sfârșit și scoasă din notebook-ul executat; implicit
    doar unde există `nvidia-smi`, altfel după `masoara_memoria_pytorch`).
    Cu `limita_ram_mib`, un notebook care a cerut mai multă memorie RAM e socotit eșuat (pe
    Colab, kernel-ul lui ar fi fost oprit).

    O celulă are cel mult `limita_celula` secunde; tot notebook-ul, cel mult `limita_notebook`
    (dacă e dată): la depășire, kernel-ul e oprit și notebook-ul e socotit eșuat. Cu `colab`,
    celula de pregătire urmează drumul de pe Colab (`RepetitieColab`): pachetul vine atunci doar
    din instalarea făcută de celulă; altfel, kernel-ul vede pachetul acestui proces
    (`_pachetul_vizibil_in_kernel`)."""
    import nbformat
    from nbclient import NotebookClient
    from nbclient.exceptions import CellExecutionError, CellTimeoutError, DeadKernelError

    cale = Path(cale)
    nb = nbformat.read(cale, as_version=4)
    if colab is not None:
        colab.pregateste_notebook(nb)
    cu_memorie_pytorch = masoara_memoria_pytorch if masoara_memoria_pytorch is not None else shutil.which("nvidia-smi") is not None
    if cu_memorie_pytorch:
        _adauga_celulele_de_memorie(nb)
    fd, fisier_cifre = tempfile.mkstemp(prefix="cifre_", suffix=".jsonl")
    os.close(fd)
    os.environ[VARIABILA_FISIER] = fisier_cifre
    timeout_celula = int(min(limita_celula, limita_notebook)) if limita_notebook else limita_celula
    config, dosar_socluri = _legatura_kernelului()
    client = NotebookClient(
        nb,
        timeout=max(1, timeout_celula),
        kernel_name="python3",
        resources={"metadata": {"path": str(cale.parent)}},
        config=config,
    )
    memorie = _MemorieGPU().porneste()
    memorie_ram = MemorieGazda().porneste()
    depasit = threading.Event()
    gata = threading.Event()

    def paznic():
        """Află PID-ul kernel-ului (pentru memorie) și îl oprește la limita notebook-ului."""
        termen = None if not limita_notebook else time.monotonic() + limita_notebook
        pid = None
        while not gata.wait(0.2):
            if pid is None:
                proces = getattr(getattr(getattr(client, "km", None), "provisioner", None), "process", None)
                if proces is not None:
                    pid = proces.pid
                    memorie.pid_kernel(pid)
                    memorie_ram.pid_kernel(pid)
            if termen is not None and time.monotonic() > termen and pid is not None:
                depasit.set()
                try:
                    import psutil

                    procese = [psutil.Process(pid), *psutil.Process(pid).children(recursive=True)]
                except Exception:
                    procese = []
                for p in procese:
                    with contextlib.suppress(Exception):
                        p.kill()
                if not procese:
                    with contextlib.suppress(Exception):
                        os.kill(pid, signal.SIGKILL)
                return

    fir_paznic = threading.Thread(target=paznic, daemon=True)
    fir_paznic.start()
    eroare = prima_linie = None
    start = time.perf_counter()
    try:
        with contextlib.nullcontext() if colab is not None else _pachetul_vizibil_in_kernel():
            client.execute()
    except (CellExecutionError, CellTimeoutError, DeadKernelError, RuntimeError) as e:
        eroare = "\n".join(str(e).strip().splitlines()[-15:])
        prima_linie = _prima_linie_eroare(e)
    durata = time.perf_counter() - start
    gata.set()
    fir_paznic.join(timeout=5)
    if dosar_socluri is not None:
        shutil.rmtree(dosar_socluri, ignore_errors=True)
    memorie.opreste()
    memorie_ram.opreste()
    if depasit.is_set():
        prima_linie = f"a depășit limita notebook-ului ({format_numar(limita_notebook, 0)} s); kernel-ul a fost oprit"
        eroare = prima_linie + ("\n" + eroare if eroare else "")
    os.environ.pop(VARIABILA_FISIER, None)
    memorie_pytorch = _scoate_celulele_de_memorie(nb) if cu_memorie_pytorch else None
    tiparit = _text_tiparit(nb)
    contrazise = contradictii(tiparit)
    if contrazise and eroare is None:
        eroare = prima_linie = "Concluzii care se contrazic singure în textul tipărit: " + "; ".join(f"„{c}”" for c in contrazise)
    if limita_ram_mib is not None and memorie_ram.maxim_mib is not None and memorie_ram.maxim_mib > limita_ram_mib \
            and eroare is None:
        eroare = prima_linie = (
            f"Memoria RAM a notebook-ului a ajuns la {format_numar(memorie_ram.maxim_mib / 1024, 2)} GiB, peste limita de "
            f"{format_numar(limita_ram_mib / 1024)} GiB (pe un runtime Colab gratuit, kernel-ul ar fi fost oprit)"
        )
    probleme = probleme_de_format("\n".join(text_iesiri(c.get("outputs", []), doar_stdout=True) for c in nb.cells))
    if probleme and eroare is None:
        eroare = prima_linie = "Numere scrise altfel decât cere cursul în textul tipărit: " + "; ".join(probleme[:10])
    dosar_executate = Path(dosar_executate)
    dosar_executate.mkdir(parents=True, exist_ok=True)
    nbformat.write(nb, dosar_executate / cale.name)
    cifre = []
    with open(fisier_cifre, encoding="utf-8") as f:
        for rand in f:
            if rand.strip():
                inregistrare = json.loads(rand)
                inregistrare["notebook"] = cale.as_posix()
                cifre.append(inregistrare)
    os.unlink(fisier_cifre)
    rezultat = {
        "cale": cale.as_posix(),
        "trecut": eroare is None,
        "secunde": durata,
        "eroare": eroare,
        "prima_linie_eroare": prima_linie,
        "cifre": cifre,
    }
    if memorie_ram.maxim_mib is not None:
        rezultat["memorie_ram_maxima_mib"] = round(memorie_ram.maxim_mib)
    pregatire = durata_celulei_de_pregatire(nb)
    if pregatire is not None:
        rezultat["secunde_pregatire"] = pregatire
    if memorie.maxim_mib is not None:
        rezultat["memorie_gpu_maxima_mib"] = round(memorie.maxim_mib)
        rezultat["memorie_gpu_masurata_pe"] = memorie.fel
    if memorie_pytorch is not None:
        rezultat["memorie_gpu_pytorch_maxima_mib"] = round(memorie_pytorch)
    return rezultat


def model_procesor(cpuinfo: str | Path = "/proc/cpuinfo") -> str | None:
    """Numele procesorului mașinii (rândul „model name” din `/proc/cpuinfo` pe Linux; altfel ce
    spune `platform.processor()`), sau None dacă nu se poate afla. Două validări pe GPU-uri la fel
    pot avea procesoare diferite, iar cifrele limitate de procesor (timpi de Python, compilări) se
    schimbă odată cu el: raportul îl numește, ca o comparație să-l poată pune la socoteală."""
    try:
        for rand in Path(cpuinfo).read_text(encoding="utf-8", errors="replace").splitlines():
            cheie, _, valoare = rand.partition(":")
            if cheie.strip().lower() in ("model name", "hardware") and valoare.strip():
                return " ".join(valoare.split())
    except OSError:
        pass
    import platform

    return platform.processor() or None


def durata_celulei_de_pregatire(nb) -> float | None:
    """Cât a durat, în secunde, celula de pregătire a unui notebook executat (cea care începe cu
    `depozit.MARCAJ_PREGATIRE`: pe Colab, clonarea cursului și instalarea pachetului), din
    timpii pe care nbclient îi scrie în metadatele celulei; None dacă nu are una sau timpii
    lipsesc."""
    from .depozit import MARCAJ_PREGATIRE

    for celula in nb.cells:
        if celula.cell_type != "code" or MARCAJ_PREGATIRE not in celula.source:
            continue
        timpi = celula.get("metadata", {}).get("execution", {})
        inceput, sfarsit = timpi.get("iopub.execute_input"), timpi.get("shell.execute_reply")
        if not inceput or not sfarsit:
            return None
        try:
            inceput, sfarsit = (dt.datetime.fromisoformat(t.replace("Z", "+00:00")) for t in (inceput, sfarsit))
        except ValueError:
            return None
        return max(0.0, (sfarsit - inceput).total_seconds())
    return None


def _gib_sau_linie(mib: float | None) -> str:
    return f"{format_numar(mib / 1024, 2)} GiB" if mib is not None else "—"


def _secunde_sau_linie(secunde: float | None) -> str:
    return f"{format_numar(secunde)} s" if secunde is not None else "—"


def _rand_de_progres(r: dict, cale: Path) -> str:
    """Rândul tipărit după fiecare notebook: starea, durata, memoria GPU și RAM, prima linie a erorii."""
    memorie = "".join(
        f"  {eticheta} {format_numar(r[cheie] / 1024, 2):>6} GiB"
        for cheie, eticheta in (("memorie_gpu_maxima_mib", "GPU"), ("memorie_gpu_pytorch_maxima_mib", "GPU PyTorch"),
                                ("memorie_ram_maxima_mib", "RAM"))
        if r.get(cheie) is not None
    )
    rand = f"  {'trecut' if r['trecut'] else 'EȘUAT '}  {format_numar(r['secunde'], 1):>7} s{memorie}  {cale}"
    if not r["trecut"] and r.get("prima_linie_eroare"):
        rand += f"\n           {r['prima_linie_eroare']}"
    return rand


def _descriere_mediu() -> dict:
    mediu = detecteaza_mediul()
    return {
        "dispozitiv": mediu.dispozitiv,
        "gpu": mediu.nume_gpu or "niciunul (CPU)",
        "capabilitate": ".".join(map(str, mediu.capabilitate)) if mediu.capabilitate else None,
        "numar_sm": mediu.numar_sm,
        "python": mediu.versiune_python,
        "torch": mediu.versiune_torch,
        "triton": mediu.versiune_triton,
        "profil": mediu.profil,
        "nuclee": os.cpu_count(),
        "model_procesor": model_procesor(),
        **({"gpu_simulat": mediu.gpu_simulat, "gpu_real": mediu.gpu_real,
            "memorie_gpu_gib": round(mediu.memorie_gpu_gib, 2)} if mediu.gpu_simulat else {}),
        **({"colab": True} if mediu.pe_colab else {}),
    }


def _grafic_durate(rezultate: list[dict], cale: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    nume = [Path(r["cale"]).stem for r in rezultate]
    durate = [r["secunde"] for r in rezultate]
    culori = ["#34a853" if r["trecut"] else "#d93025" for r in rezultate]
    fig, ax = plt.subplots(figsize=(7, 0.45 * len(nume) + 1.2))
    ax.barh(range(len(nume)), durate, color=culori)
    ax.set_yticks(range(len(nume)), nume)
    ax.invert_yaxis()
    ax.set_xlabel("durata execuției (s); verde = trecut, roșu = eșuat")
    for i, d in enumerate(durate):
        ax.text(d, i, f" {format_numar(d, 0)} s", va="center")
    ax.set_xlim(0, max(durate) * 1.25 if durate else 1)
    fig.tight_layout()
    fig.savefig(cale, dpi=110)
    plt.close(fig)


def _masurata_de(cifra: dict) -> str:
    """Cine a măsurat cifra, pentru raport: notebook-ul sau, la o cifră adăugată cu
    `--adauga-cifre`, scriptul (și notebook-ul care o arată)."""
    notebook = cifra.get("notebook")
    nume_notebook = f"`{Path(notebook).name}`" if notebook else ""
    if cifra.get("sursa"):
        return f"`{cifra['sursa']}`" + (f" (arătată în {nume_notebook})" if nume_notebook else "")
    return nume_notebook or "—"


def _raport_markdown(date: dict) -> str:
    mediu = date["mediu"]
    randuri = [
        "# Raportul validării cursului",
        "",
        f"Data: {date['data']}. Durata totală: {format_numar(date['secunde_total'])} s.",
        "",
        "## Mașina",
        "",
        f"- dispozitiv: {mediu['gpu']}"
        + (f" (capabilitate {mediu['capabilitate']}, {cu_substantiv(mediu['numar_sm'], 'SM', 'SM')})" if mediu["capabilitate"] else ""),
        f"- Python {mediu['python']}, torch {mediu['torch']}, triton {mediu['triton'] or 'neinstalat'}",
        *(["- procesorul: " + (f"{mediu['model_procesor']}, " if mediu.get("model_procesor") else "")
           + cu_substantiv(mediu['nuclee'], 'nucleu', 'nuclee')] if mediu.get("nuclee") else []),
        f"- profil de dimensiuni: {mediu['profil']}",
    ]
    if mediu.get("gpu_simulat"):
        randuri.append(
            f"- **GPU simulat**: {mediu['gpu_simulat']} (`CURS_GPU_SIMULAT={mediu['gpu_simulat']}`) pe {mediu['gpu_real']}, "
            f"cu memoria procesului plafonată la {format_numar(mediu['memorie_gpu_gib'])} GiB; duratele și cifrele "
            f"sunt ale lui {mediu['gpu_real']}, nu ale unui {mediu['gpu_simulat']}"
        )
    if mediu.get("colab_simulat"):
        randuri.append(
            "- celula de pregătire a urmat drumul de pe Colab (modul `google.colab` fals, clonare dintr-un depozit "
            "local, pachetul instalat cu pip); fiecare notebook a pornit ca într-un runtime nou: clonă și instalare "
            "noi, cache-urile de compilare ale lui Inductor și Triton goale"
        )
    if mediu.get("profil_colab"):
        profil = mediu["profil_colab"]
        nuclee = f"kernel-ul pe {profil['nuclee']} nuclee (afinitate, fire PyTorch, procese de compilare Inductor)"
        ram = f"memoria RAM a unui notebook cel mult {format_numar(profil['limita_ram_gib'])} GiB"
        if mediu.get("dispozitiv") == "cuda":
            randuri.append(
                f"- **profilul Colab**: GPU simulat {profil['gpu_simulat']}, {nuclee}, {ram}. Duratele sunt o **limită "
                f"de jos** pentru un {profil['gpu_simulat']} adevărat: compilarea și Python-ul rulează pe "
                f"{profil['nuclee']} nuclee, ca pe Colab, dar lucrul GPU-ului se face cu viteza lui "
                f"{mediu.get('gpu_real') or mediu['gpu']}"
            )
        else:
            randuri.append(
                f"- **profilul Colab**, pe o mașină fără GPU: {nuclee}, {ram}; fără GPU, capitolele rulează pe drumul "
                f"de procesor, ca pe un runtime Colab fără GPU"
            )
    if date.get("unite"):
        unite = date["unite"]
        nuclee = [", ".join(map(str, n)) for n in unite.get("nuclee_alese") or [] if n]
        randuri.append(
            f"- raportul unește {cu_substantiv(unite['rapoarte'], 'validare rulată', 'validări rulate')} deodată"
            + (f", fiecare pe nucleele ei ({'; '.join(nuclee)})" if nuclee else "")
            + ", pe același GPU: duratele unui notebook pot include așteptarea după lucrul GPU al celorlalte, iar "
            "memoria GPU a fiecăruia e cea a PyTorch din kernel-ul lui"
        )
    notebookuri = date["notebookuri"]
    cu_memorie = any(r.get("memorie_gpu_maxima_mib") is not None for r in notebookuri)
    cu_pytorch = any(r.get("memorie_gpu_pytorch_maxima_mib") is not None for r in notebookuri)
    cu_ram = any(r.get("memorie_ram_maxima_mib") is not None for r in notebookuri)
    cu_pregatire = any(r.get("secunde_pregatire") is not None for r in notebookuri)
    randuri += ["", "## Notebook-urile", ""]
    if cu_memorie:
        pe_tot_gpu = any(r.get("memorie_gpu_masurata_pe") == MEMORIE_PE_TOT_GPU for r in notebookuri)
        randuri += [
            "Memoria GPU: maximul ocupat de procesele notebook-ului (kernel-ul și ce pornește el, contextul CUDA "
            "inclus), citit din `nvidia-smi` la fiecare jumătate de secundă"
            + (
                "; unde `nvidia-smi` nu vede procesele după PID (într-un container), e memoria ocupată pe tot "
                "GPU-ul peste nivelul de dinaintea notebook-ului (notebook-urile rulează unul după altul)."
                if pe_tot_gpu else "."
            ),
            "",
        ]
    if cu_pytorch:
        randuri += [
            "Memoria GPU a PyTorch: maximul memoriei rezervate de alocatorul PyTorch în kernel-ul notebook-ului "
            "(`torch.cuda.memory_reserved`, citit la fiecare 0,2 s), fără contextul CUDA; e a notebook-ului și când "
            "mai multe rulează deodată pe același GPU.",
            "",
        ]
    if cu_ram:
        randuri += [
            "Memoria RAM: maximul memoriei rezidente a kernel-ului și a proceselor pornite de el (inclusiv procesele de "
            "compilare ale lui Inductor), la fiecare jumătate de secundă.",
            "",
        ]
    if cu_pregatire:
        randuri += ["Pregătirea: cât a durat celula de pregătire a mediului (pe Colab: clonarea și instalarea).", ""]
    coloane = [("durată", lambda r: f"{format_numar(r['secunde'])} s", True),
               ("pregătirea", lambda r: _secunde_sau_linie(r.get("secunde_pregatire")), cu_pregatire),
               ("memoria GPU, maxim", lambda r: _gib_sau_linie(r.get("memorie_gpu_maxima_mib")), cu_memorie),
               ("memoria GPU a PyTorch, maxim", lambda r: _gib_sau_linie(r.get("memorie_gpu_pytorch_maxima_mib")), cu_pytorch),
               ("memoria RAM, maxim", lambda r: _gib_sau_linie(r.get("memorie_ram_maxima_mib")), cu_ram)]
    coloane = [(nume, valoare) for nume, valoare, are in coloane if are]
    randuri += ["| notebook | stare | " + " | ".join(nume for nume, _ in coloane) + " |",
                "|---|---|" + "---|" * len(coloane)]
    for r in notebookuri:
        stare = "trecut" if r["trecut"] else "**EȘUAT**"
        randuri.append(f"| `{r['cale']}` | {stare} | " + " | ".join(valoare(r) for _, valoare in coloane) + " |")
    randuri += ["", "![Durata fiecărui notebook](durate.png)", "", "## Cifrele-cheie măsurate", ""]
    if date["cifre"]:
        randuri += [
            "Valoarea e mediana; în paranteză, cea mai mică și cea mai mare dintre medianele rundelor de "
            "măsurare și, unde e cazul, mențiunea că cifra depinde și de procesorul mașinii (un apel "
            "limitat de procesor, un timp de compilare), nu doar de GPU. Cifrele măsurate de un script, "
            "nu de un notebook, au scriptul în ultima coloană.",
            "",
            "| cifră | valoare | măsurată de |",
            "|---|---|---|",
        ]
        for c in date["cifre"]:
            randuri.append(f"| {c['descriere']} | {descrie_cifra(c)} | {_masurata_de(c)} |")
    else:
        randuri.append("Niciun notebook n-a înregistrat cifre.")
    surse = date.get("surse_adaugate") or []
    if surse:
        randuri += ["", "## Cifre măsurate separat, de scripturi", ""]
        for s in surse:
            arata = f", arătate în `{Path(s['notebook']).name}`" if s.get("notebook") else ""
            randuri.append(
                f"- `{s['sursa']}`: {cu_substantiv(len(s['chei']), 'cifră', 'cifre')}{arata}, adăugate pe {s['data']} "
                f"(`{'`, `'.join(s['chei'])}`)."
            )
    esecuri = [r for r in date["notebookuri"] if not r["trecut"]]
    if esecuri:
        randuri += ["", "## Erori", ""]
        for r in esecuri:
            randuri += [f"### `{r['cale']}`", "", "```", r["eroare"] or "", "```", ""]
    return "\n".join(randuri) + "\n"


def completeaza(vechi: dict, nou: dict) -> dict:
    """Raportul `vechi`, în care notebook-urile din `nou` (și cifrele lor) sunt înlocuite cu
    cele din `nou`, iar restul rămân. Ordinea: notebook-urile vechi, apoi cele noi. Cifrele
    adăugate dintr-un script (cu `sursa`) rămân, cât timp notebook-urile nu măsoară acum o
    cifră cu aceeași cheie."""
    executate = {r["cale"] for r in nou["notebookuri"]}
    chei_noi = {c["cheie"] for c in nou["cifre"]}
    notebookuri = [r for r in vechi.get("notebookuri", []) if r["cale"] not in executate] + nou["notebookuri"]
    notebookuri.sort(key=lambda r: (not r["cale"].startswith("notebooks/"), r["cale"]))
    pastrate = [
        c for c in vechi.get("cifre", [])
        if c["cheie"] not in chei_noi and (c.get("sursa") or c.get("notebook") not in executate)
    ]
    cifre = pastrate + nou["cifre"]
    ordine = {r["cale"]: i for i, r in enumerate(notebookuri)}
    cifre.sort(key=lambda c: ordine.get(c.get("notebook"), len(ordine)))
    rezultat = {**nou, "secunde_total": sum(r["secunde"] for r in notebookuri), "notebookuri": notebookuri, "cifre": cifre}
    if vechi.get("surse_adaugate"):
        rezultat["surse_adaugate"] = vechi["surse_adaugate"]
    return rezultat


def uneste_rapoarte(rapoarte: list[dict]) -> dict:
    """Un singur raport din rapoartele unor validări rulate deodată (de exemplu, profilul Colab
    pornit în câteva procese, fiecare pe nucleele lui): notebook-urile și cifrele tuturor (la
    același notebook, cel din raportul de mai târziu din listă), mașina primului, data celui mai
    recent. Memoria GPU citită pe tot GPU-ul (`MEMORIE_PE_TOT_GPU`) nu e doar a notebook-ului
    când au rulat mai multe deodată: se scoate (rămâne cea a PyTorch din kernel). `secunde_total` e suma duratelor notebook-urilor, nu cât a durat rularea deodată;
    `unite` spune câte rapoarte s-au unit și, în `nuclee_alese`, nucleele fiecăruia."""
    if not rapoarte:
        raise ValueError("Nu am primit niciun raport de unit.")
    date = rapoarte[0]
    for urmatorul in rapoarte[1:]:
        date = completeaza(date, {**urmatorul, "mediu": date["mediu"]})
    date = {**date, "data": max(r["data"] for r in rapoarte)}
    if len(rapoarte) > 1:  # citită pe tot GPU-ul, cu alte notebook-uri deodată: nu e doar a notebook-ului
        date["notebookuri"] = [
            {k: v for k, v in r.items() if k not in ("memorie_gpu_maxima_mib", "memorie_gpu_masurata_pe")}
            if r.get("memorie_gpu_masurata_pe") == MEMORIE_PE_TOT_GPU else r
            for r in date["notebookuri"]
        ]
    nuclee = [r["mediu"].get("profil_colab", {}).get("nuclee_alese") for r in rapoarte]
    date["unite"] = {"rapoarte": len(rapoarte), "nuclee_alese": nuclee}
    return date


def citeste_cifre_inregistrate(cale: str | Path) -> list[dict]:
    """Cifrele dintr-un fișier JSON Lines scris de `cifre.inregistreaza` (când variabila de
    mediu `CURS_FISIER_CIFRE` e setată), câte una pe rând. Un rând care nu e o cifră înregistrată
    aduce un `ValueError` cu explicația, în română."""
    cale = Path(cale)
    cifre = []
    for numar, rand in enumerate(cale.read_text(encoding="utf-8").splitlines(), start=1):
        if not rand.strip():
            continue
        try:
            cifra = json.loads(rand)
        except json.JSONDecodeError as e:
            raise ValueError(f"rândul {numar} din {cale} nu e JSON valid ({e.msg}).") from None
        if not isinstance(cifra, dict):
            raise ValueError(f"rândul {numar} din {cale} nu e o cifră (un obiect JSON), ci {type(cifra).__name__}.")
        lipsa = [camp for camp in ("cheie", "valoare", "unitate", "descriere") if camp not in cifra]
        if lipsa:
            raise ValueError(
                f"rândul {numar} din {cale} nu e o cifră scrisă de cifre.inregistreaza: "
                f"îi lipsește {', '.join(f'„{camp}”' for camp in lipsa)}."
            )
        if isinstance(cifra["valoare"], bool) or not isinstance(cifra["valoare"], (int, float)):
            raise ValueError(f"rândul {numar} din {cale}: valoarea cifrei „{cifra['cheie']}” nu e un număr.")
        cifra.setdefault("interval", None)
        cifra["depinde_de_procesor"] = bool(cifra.get("depinde_de_procesor"))
        cifre.append(cifra)
    return cifre


def _capitol(cheie: str) -> str:
    """„06” pentru cheia „06.regional_diferenta_pas”."""
    return cheie.split(".", 1)[0]


def adauga_cifre(date: dict, cifre_noi: list[dict], sursa: str, notebook: str | None = None, data: str | None = None) -> dict:
    """Raportul `date`, cu cifrele `cifre_noi` (măsurate de `sursa`, un script) adăugate.

    O cifră cu aceeași cheie ca una existentă o înlocuiește, pe locul ei; o cifră nouă vine
    după ultima cifră a aceluiași capitol (prefixul cheii, „06.”), sau la sfârșit. Fiecare cifră
    adăugată primește câmpul `sursa` și, dacă e dat, `notebook` (notebook-ul care o arată; altfel,
    fără notebook). Lista `surse_adaugate` a raportului ține minte sursa, data și cheile ei; o
    sursă adăugată din nou își înlocuiește rândul. `date` nu se modifică."""
    data = data or dt.datetime.now().isoformat(timespec="seconds")
    cifre = [dict(c) for c in date.get("cifre", [])]
    inlocuite = []
    for noua in cifre_noi:
        noua = {k: v for k, v in noua.items() if k not in ("sursa", "notebook")}
        noua["sursa"] = sursa
        if notebook:
            noua["notebook"] = notebook
        pozitii = [i for i, c in enumerate(cifre) if c["cheie"] == noua["cheie"]]
        if pozitii:
            cifre[pozitii[0]] = noua
            for i in reversed(pozitii[1:]):  # o cheie apare o singură dată
                del cifre[i]
            inlocuite.append(noua["cheie"])
            continue
        acelasi_capitol = [i for i, c in enumerate(cifre) if _capitol(c["cheie"]) == _capitol(noua["cheie"])]
        cifre.insert(acelasi_capitol[-1] + 1 if acelasi_capitol else len(cifre), noua)
    chei = list(dict.fromkeys(c["cheie"] for c in cifre_noi))
    surse = [s for s in date.get("surse_adaugate", []) if s["sursa"] != sursa]
    surse.append({"sursa": sursa, "notebook": notebook, "data": data, "chei": chei, "inlocuite": inlocuite})
    return {**date, "cifre": cifre, "surse_adaugate": surse}


def _este_numarare(cifra: dict) -> bool:
    return cifra["unitate"] in UNITATI_NUMARATE and float(cifra["valoare"]).is_integer()


def fel_comparatie(primul: dict, al_doilea: dict) -> str:
    """Cum se compară două valori ale aceleiași cifre:

    - „absolut”: cifra are un prag absolut propriu (`prag_absolut`), în unitatea ei;
    - „puncte”: procente (`UNITATI_COMPARATE_PRIN_DIFERENTA`), prin diferența în puncte procentuale;
    - „numărare”: o numărătoare mică (sub `PRAG_NUMARATOARE_MICA`), care trebuie să fie egală;
    - „raport”: restul, prin raportul dintre valoarea mai mare și cea mai mică."""
    if primul.get("prag_absolut") is not None or al_doilea.get("prag_absolut") is not None:
        return "absolut"
    if primul["unitate"] in UNITATI_COMPARATE_PRIN_DIFERENTA:
        return "puncte"
    if (_este_numarare(primul) and _este_numarare(al_doilea)
            and max(abs(primul["valoare"]), abs(al_doilea["valoare"])) < PRAG_NUMARATOARE_MICA):
        return "numărare"
    return "raport"


def _rotunjit(valoare: float) -> float:
    """Valoarea rotunjită cum o scrie `format_numar` (ca acordul cu substantivul să se potrivească)."""
    return float(format_numar(valoare).replace(" ", "").replace(",", "."))


def _compara_cifra(a: dict, b: dict, prag: float, prag_puncte: float) -> dict:
    """Compararea a două valori ale aceleiași cifre: felul comparației, `la_fel`, `factor`
    (doar la „raport”), `diferenta` (a doua valoare minus prima) și textul diferenței."""
    va, vb = float(a["valoare"]), float(b["valoare"])
    rezultat = {"factor": None, "diferenta": vb - va}
    if a["unitate"] != b["unitate"]:
        return {**rezultat, "fel": "unități diferite", "la_fel": False,
                "text": f"unități diferite: „{a['unitate']}” și „{b['unitate']}”"}
    fel = fel_comparatie(a, b)
    diferenta = abs(vb - va)
    if fel == "puncte":
        return {**rezultat, "fel": fel, "la_fel": diferenta <= prag_puncte,
                "text": cu_substantiv(_rotunjit(diferenta), "punct procentual", "puncte procentuale")}
    if fel == "numărare":
        return {**rezultat, "fel": fel, "la_fel": diferenta == 0,
                "text": "niciuna" if diferenta == 0 else cu_unitate(diferenta, a["unitate"])}
    if fel == "absolut":
        prag_absolut = max(float(c["prag_absolut"]) for c in (a, b) if c.get("prag_absolut") is not None)
        scris = format_numar(diferenta) if not a["unitate"] else cu_unitate(diferenta, a["unitate"])
        return {**rezultat, "fel": fel, "la_fel": diferenta <= prag_absolut,
                "text": f"{scris} (prag: {format_numar(prag_absolut)})"}
    if va == 0 and vb == 0:
        return {**rezultat, "fel": fel, "factor": 1.0, "la_fel": True, "text": "niciuna (ambele 0)"}
    if va == 0 or vb == 0:
        return {**rezultat, "fel": fel, "factor": math.inf, "la_fel": False, "text": "una dintre valori e 0"}
    if (va < 0) != (vb < 0):
        return {**rezultat, "fel": fel, "la_fel": False, "text": "semne opuse"}
    mic, mare = sorted((abs(va), abs(vb)))
    factor = mare / mic
    return {**rezultat, "fel": fel, "factor": factor, "la_fel": factor <= 1 + prag,
            "text": f"raport {cu_unitate(factor, '×')}"}


def compara_rapoarte(
    primul: dict, al_doilea: dict, prag: float = PRAG_DIFERENTA, prag_puncte: float = PRAG_PUNCTE_PROCENTUALE
) -> list[dict]:
    """Cifrele comune ale două rapoarte, în ordinea din primul, fiecare cu felul comparației
    (`fel`, vezi `fel_comparatie`), `factor` (raportul dintre valoarea mai mare și cea mai mică,
    doar la comparația prin raport), `diferenta` (a doua valoare minus prima), textul diferenței
    (`text_diferenta`) și verdictul: „la fel” (în prag), „depinde de procesor” (peste prag, dar
    cifra depinde de procesorul mașinii) sau „diferă”.

    Pragurile: `prag` pentru raport (0,15: cel mult 1,15×), `prag_puncte` pentru procente (în
    puncte procentuale); numărătorile mici trebuie să fie egale."""
    doi = {c["cheie"]: c for c in al_doilea.get("cifre", [])}
    randuri = []
    for a in primul.get("cifre", []):
        b = doi.get(a["cheie"])
        if b is None:
            continue
        comparatie = _compara_cifra(a, b, prag, prag_puncte)
        depinde = bool(a.get("depinde_de_procesor") or b.get("depinde_de_procesor"))
        if comparatie["la_fel"]:
            verdict = "la fel"
        elif depinde:
            verdict = "depinde de procesor"
        else:
            verdict = "diferă"
        randuri.append({
            "cheie": a["cheie"], "descriere": a["descriere"], "primul": a, "al_doilea": b,
            "fel": comparatie["fel"], "factor": comparatie["factor"], "diferenta": comparatie["diferenta"],
            "text_diferenta": comparatie["text"], "depinde_de_procesor": depinde, "verdict": verdict,
        })
    return randuri


def chei_necomune(primul: dict, al_doilea: dict) -> tuple[list[dict], list[dict]]:
    """Cifrele care sunt doar în primul raport și cele care sunt doar în al doilea, în ordinea din
    raportul lor. `compara_rapoarte` le lasă deoparte; ele spun dacă două rulări au măsurat același
    lucru (o cheie schimbată, o cifră pierdută la o mutare de cod, una adăugată dintr-un script)."""
    chei_unu = {c["cheie"] for c in primul.get("cifre", [])}
    chei_doi = {c["cheie"] for c in al_doilea.get("cifre", [])}
    return ([c for c in primul.get("cifre", []) if c["cheie"] not in chei_doi],
            [c for c in al_doilea.get("cifre", []) if c["cheie"] not in chei_unu])


def _lista_necomune(titlu: str, cifre_: list[dict]) -> list[str]:
    if not cifre_:
        return []
    linii = ["", f"{titlu} ({len(cifre_)}):", ""]
    for c in cifre_:
        sursa = f"; măsurată de `{c['sursa']}`" if c.get("sursa") else ""
        linii.append(f"- `{c['cheie']}`: {c['descriere']}{sursa}")
    return linii


def _tabel_comparatie(randuri: list[dict], prag: float, prag_puncte: float = PRAG_PUNCTE_PROCENTUALE,
                      necomune: tuple[list[dict], list[dict]] = ((), ())) -> str:
    linii = [
        f"Praguri: raportul dintre valoarea mai mare și cea mai mică, cel mult {cu_unitate(1 + prag, '×')} "
        f"(o diferență de {format_numar(100 * prag)}%); procentele, o diferență de cel mult "
        f"{cu_substantiv(_rotunjit(prag_puncte), 'punct procentual', 'puncte procentuale')}; "
        f"numărătorile mai mici de {PRAG_NUMARATOARE_MICA} (kernel-uri, grafuri), egale.",
        "",
        "| cifră | prima rulare | a doua rulare | diferență | verdict |",
        "|---|---|---|---|---|",
    ]
    for r in randuri:
        linii.append(
            f"| {r['descriere']} | {descrie_cifra(r['primul'])} | {descrie_cifra(r['al_doilea'])} | "
            f"{r['text_diferenta']} | {r['verdict']} |"
        )
    diferite = sum(r["verdict"] == "diferă" for r in randuri)
    dependente = sum(r["verdict"] == "depinde de procesor" for r in randuri)
    la_fel = len(randuri) - diferite - dependente
    peste_prag = "e peste prag, dar depinde" if dependente == 1 else "sunt peste prag, dar depind"
    linii += [
        "",
        f"{cu_substantiv(len(randuri), 'cifră comună', 'cifre comune')}: {la_fel} la fel, {diferite} diferă, "
        f"iar {dependente} {peste_prag} de procesor.",
    ]
    doar_unu, doar_doi = necomune
    if not doar_unu and not doar_doi:
        linii.append("Cele două rulări au aceleași chei: nicio cifră în plus, nicio cifră lipsă.")
    linii += _lista_necomune("Doar în prima rulare", list(doar_unu))
    linii += _lista_necomune("Doar în a doua rulare", list(doar_doi))
    return "\n".join(linii) + "\n"


def _scrie_raportul(date: dict, dosar: Path) -> None:
    """Scrie `rezultate.json` și `raport.md` în `dosar`."""
    (dosar / "rezultate.json").write_text(json.dumps(date, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    (dosar / "raport.md").write_text(_raport_markdown(date), encoding="utf-8")


def _adauga_din_linia_de_comanda(argumente) -> int:
    """`--adauga-cifre`: citește cifrele, le adaugă în `--rezultate` și rescrie raportul de lângă el."""
    lipsa = [optiune for optiune, valoare in (("--sursa", argumente.sursa), ("--rezultate", argumente.rezultate)) if not valoare]
    if lipsa:
        print(f"Eroare: --adauga-cifre cere și {' și '.join(lipsa)} (de unde vin cifrele și raportul în care intră).",
              file=sys.stderr)
        return 2
    cale_rezultate = Path(argumente.rezultate)
    if not cale_rezultate.is_file():
        print(f"Eroare: nu găsesc raportul {cale_rezultate}.", file=sys.stderr)
        return 2
    try:
        cifre_noi = citeste_cifre_inregistrate(argumente.adauga_cifre)
    except FileNotFoundError:
        print(f"Eroare: nu găsesc fișierul de cifre {argumente.adauga_cifre}.", file=sys.stderr)
        return 2
    except ValueError as e:
        print(f"Eroare: {e}", file=sys.stderr)
        return 2
    if not cifre_noi:
        print(f"Eroare: {argumente.adauga_cifre} nu conține nicio cifră. Ai rulat scriptul cu "
              f"{VARIABILA_FISIER}={argumente.adauga_cifre}?", file=sys.stderr)
        return 2
    vechi = json.loads(cale_rezultate.read_text(encoding="utf-8"))
    date = adauga_cifre(vechi, cifre_noi, argumente.sursa, argumente.notebook)
    _scrie_raportul(date, cale_rezultate.parent)
    if not (cale_rezultate.parent / "durate.png").is_file() and date.get("notebookuri"):
        _grafic_durate(date["notebookuri"], cale_rezultate.parent / "durate.png")
    inlocuite = len(date["surse_adaugate"][-1]["inlocuite"])
    print(f"Am adăugat {cu_substantiv(len(cifre_noi), 'cifră', 'cifre')} din „{argumente.sursa}” în {cale_rezultate} "
          f"(înlocuite: {inlocuite}; noi: {len(cifre_noi) - inlocuite}); "
          f"raportul: {cale_rezultate.parent / 'raport.md'}")
    return 0


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description="Execută notebook-urile cursului și scrie un raport.")
    parser.add_argument("notebookuri", nargs="*", help="implicit: notebooks/*.ipynb și solutions/*.ipynb")
    parser.add_argument("--iesire", default="build/validare", help="dosarul raportului")
    parser.add_argument("--limita-celula", type=int, default=1200, help="secunde, cel mult, pentru o celulă")
    parser.add_argument("--completeaza", help="un rezultate.json mai vechi, de completat cu notebook-urile executate acum")
    parser.add_argument("--uneste", nargs="+", metavar="REZULTATE_JSON",
                        help="unește în --iesire rapoartele unor validări rulate deodată, fără să execute nimic")
    parser.add_argument("--compara", nargs=2, metavar="REZULTATE_JSON", help="compară două rapoarte, fără să execute nimic")
    parser.add_argument("--prag", type=float, default=PRAG_DIFERENTA,
                        help="la --compara: diferența relativă acceptată la cifrele comparate prin raport (0.15 = 15%%)")
    parser.add_argument("--prag-puncte", type=float, default=PRAG_PUNCTE_PROCENTUALE,
                        help="la --compara: diferența acceptată la procente, în puncte procentuale")
    parser.add_argument("--adauga-cifre", metavar="CIFRE_JSONL",
                        help="adaugă într-un raport cifrele scrise de un script (cu CURS_FISIER_CIFRE), fără să execute nimic")
    parser.add_argument("--sursa", help="la --adauga-cifre: ce le-a măsurat, de exemplu „benchmarks/capitolul06.py --max-autotune”")
    parser.add_argument("--rezultate", metavar="REZULTATE_JSON", help="la --adauga-cifre: raportul în care intră cifrele")
    parser.add_argument("--notebook", help="la --adauga-cifre: notebook-ul care arată cifrele (opțional)")
    parser.add_argument("--limita-notebook", type=float, default=None,
                        help="secunde, cel mult, pentru un notebook întreg (implicit fără limită)")
    parser.add_argument("--profil-colab", action="store_true",
                        help="ca pe un runtime Colab gratuit: GPU simulat T4, 2 nuclee (afinitate, fire, procese de "
                             "compilare), memoria RAM a notebook-ului cel mult 12 GiB; duratele sunt o limită de jos "
                             "pentru un T4 adevărat (vezi profil_colab)")
    parser.add_argument("--colab-simulat", action="store_true",
                        help="celula de pregătire urmează drumul de pe Colab: modul google.colab fals, clonare dintr-un "
                             "depozit local făcut din dosarul curent, instalarea pachetului cu pip")
    argumente = parser.parse_args(argv)

    if argumente.adauga_cifre:
        return _adauga_din_linia_de_comanda(argumente)

    if argumente.uneste:
        rapoarte = [json.loads(Path(c).read_text(encoding="utf-8")) for c in argumente.uneste]
        date = uneste_rapoarte(rapoarte)
        iesire = Path(argumente.iesire)
        iesire.mkdir(parents=True, exist_ok=True)
        _grafic_durate(date["notebookuri"], iesire / "durate.png")
        _scrie_raportul(date, iesire)
        trecute = sum(r["trecut"] for r in date["notebookuri"])
        print(f"Am unit {cu_substantiv(len(rapoarte), 'raport', 'rapoarte')}: {trecute} trecute, "
              f"{len(date['notebookuri']) - trecute} eșuate. Raportul: {iesire / 'raport.md'}")
        return 0 if trecute == len(date["notebookuri"]) else 1

    if argumente.compara:
        primul, al_doilea = (json.loads(Path(c).read_text(encoding="utf-8")) for c in argumente.compara)
        randuri = compara_rapoarte(primul, al_doilea, argumente.prag, argumente.prag_puncte)
        print(_tabel_comparatie(randuri, argumente.prag, argumente.prag_puncte, chei_necomune(primul, al_doilea)))
        return 1 if any(r["verdict"] == "diferă" for r in randuri) else 0

    cai = [Path(c) for c in argumente.notebookuri] or notebookuri_cursului(Path("."), solutii=True)
    iesire = Path(argumente.iesire)
    iesire.mkdir(parents=True, exist_ok=True)
    profil = ProfilColab() if argumente.profil_colab else None
    with profil.aplicat() if profil else contextlib.nullcontext():
        mediu = _descriere_mediu()
        masina = mediu["gpu"] if mediu["dispozitiv"] == "cuda" else "procesor (fără GPU)"
        print(f"Validez {cu_substantiv(len(cai), 'notebook', 'notebook-uri')} pe {masina} (torch {mediu['torch']})", flush=True)
        if profil:
            mediu["profil_colab"] = {"nuclee": profil.nuclee, "gpu_simulat": profil.gpu_simulat,
                                     "limita_ram_gib": profil.limita_ram_gib, "nuclee_alese": list(profil.nuclee_alese)}
            print(f"Profilul Colab: {profil.descriere()}.", flush=True)

        colab = None
        if argumente.colab_simulat:
            dosar_colab = Path(tempfile.mkdtemp(prefix="colab_simulat_"))
            colab = depozit_local_pentru_colab(Path.cwd(), dosar_colab)
            mediu["colab_simulat"] = True
            print(f"Drumul de pe Colab: fiecare notebook într-un runtime nou (în {dosar_colab}): clonez din {colab.adresa}, "
                  "instalez pachetul cu pip, cache-urile de compilare pornesc goale.", flush=True)

        start = time.perf_counter()
        rezultate = []
        with instalarea_pastrata() if colab else contextlib.nullcontext():
            for i, cale in enumerate(cai):
                # Cu drumul de pe Colab, fiecare notebook pornește ca într-un runtime nou (așa cum
                # cer agendele atelierului): clonă nouă, instalare nouă, cache-uri de compilare goale.
                # În profilul Colab, cache-urile pornesc goale la fiecare notebook, ca într-un runtime nou.
                runtime = dosar_colab / f"runtime_{i:02d}" if colab else None
                with cache_gol() if colab or profil else contextlib.nullcontext():
                    r = executa_notebook(cale, iesire / "executate", argumente.limita_celula, argumente.limita_notebook,
                                         colab.runtime_nou(runtime) if colab else None,
                                         limita_ram_mib=profil.limita_ram_gib * 1024 if profil else None)
                rezultate.append(r)
                print(_rand_de_progres(r, cale), flush=True)
    date = {
        "data": dt.datetime.now().isoformat(timespec="seconds"),
        "secunde_total": time.perf_counter() - start,
        "mediu": mediu,
        "notebookuri": [{k: v for k, v in r.items() if k != "cifre"} for r in rezultate],
        "cifre": [c for r in rezultate for c in r["cifre"]],
    }
    if argumente.completeaza:
        date = completeaza(json.loads(Path(argumente.completeaza).read_text(encoding="utf-8")), date)
    _grafic_durate(date["notebookuri"], iesire / "durate.png")
    _scrie_raportul(date, iesire)
    trecute = sum(r["trecut"] for r in rezultate)
    print(f"Trecute: {trecute}; eșuate: {len(rezultate) - trecute}. Raportul: {iesire / 'raport.md'}")
    return 0 if trecute == len(rezultate) else 1


if __name__ == "__main__":
    sys.exit(main())
