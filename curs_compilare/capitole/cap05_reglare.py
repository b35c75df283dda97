"""Reglarea automată (*autotuning*) a unui kernel Triton: produsul de matrice al capitolului 05.

Aici stă un kernel simplu pentru C = A @ B, scris pe plăci (*tiles*) de BM × BN, care parcurge
dimensiunea comună K în pași de BK. Aceleași calcule se pot face cu plăci de 16 × 16 sau de
128 × 128, cu 1 sau 8 warp-uri, cu 1 sau 4 etape de preîncărcare (`num_stages`): rezultatul e
același, viteza nu. Reglarea automată încearcă fiecare configurație o dată, o cronometrează și
o păstrează pe cea mai rapidă pentru fiecare dimensiune a problemei — ca bucătarul care încearcă
mai multe tigăi și focuri și o ține minte pe cea mai bună pentru fiecare fel de mâncare.

- `kernel_matmul` — kernel-ul, cu dimensiunile plăcii (`BM`, `BN`, `BK`) ca parametri constexpr;
- `matmul_cu_configuratie(a, b, BM, BN, BK, ...)` — îl lansează cu o singură configurație, fixă;
- `matmul_reglat(configuratii)` — o funcție `f(a, b)` care îl lansează reglat automat
  (`triton.autotune`); `f.reglator` e obiectul Triton, `f.configuratia_aleasa` câștigătoarea,
  `f.timpi()` timpii fiecărei configurații;
- `CONFIGURATIE_DE_BAZA` — configurația fixă de comparație: plăci de 16 × 16 × 16, un warp;
- `flops_matmul(M, N, K)` — operațiile unui produs de matrice, 2·M·N·K;
- `produs_cu_epilog`, `intrari_produs_cu_epilog`, `compilari_pe_moduri` — produsul
  `relu(a @ b + bias)` din secțiunea 3 și timpul primului apel în fiecare mod de compilare;
- `unitate_debit_calcul(valori)` — unitatea (GFLOP/s, MFLOP/s...) în care debitele de calcul nu
  se rotunjesc la „0”;
- `etape_compilare_triton()` — etapele prin care Triton duce un kernel până la codul mașină al
  GPU-ului (ttir → ttgir → llir → ptx → cubin);
- `surse_reglare_inductor()` — rândurile din sursa Inductor instalată care arată pe ce date își
  cronometrează reglarea variantele (tensori aleatori pentru produsele de matrice, argumentele
  reale ale apelului pentru celelalte kernel-uri);
- `tabel_configuratii`, `grafic_configuratii`, `tabel_moduri`, `grafic_debite_moduri`,
  `inregistreaza_configuratiile`, `inregistreaza_modurile` — tabelele și graficele secțiunilor 2
  și 3 și cifrele lor pentru raportul de referință, ca celulele capitolului să arate doar lecția.

Pe o mașină fără GPU, kernel-ul rulează prin interpretorul Triton (`TRITON_INTERPRET=1`, pus de
`import curs_compilare`). Interpretorul execută kernel-ul în Python și NumPy, program cu program:
rezultatele sunt corecte, dar timpii nu spun nimic despre un GPU. Reglarea automată a lui Triton
își cronometrează configurațiile cu evenimente CUDA, pe care interpretorul nu le are (pe CPU,
`triton.autotune` obișnuit cade cu „0 active drivers”). De aceea, pe CPU, `matmul_reglat` îi dă
lui `triton.autotune` un cronometru de ceas (`time.perf_counter`, mediana a 3 rulări): reglarea
merge cap-coadă, cu o câștigătoare și cu timpi pe configurație, dar câștigă de obicei placa cea
mai mare, pentru că interpretorul plătește pentru fiecare program și pentru fiecare pas al
buclei, nu pentru calcul. O versiune de Triton fără parametrul `do_bench` la `triton.autotune`
păstrează, pe CPU, doar prima configurație, fără cronometrare.

Unde pachetul `triton` lipsește (macOS, Windows), modulul se importă totuși, iar eroarea, în
română, apare abia la prima folosire.
"""

import inspect
import re
import statistics
import time

import torch

from .. import cifre
from ..masurare import _cuantila
from ..mediu import dimensiune

__all__ = [
    "ARE_TRITON",
    "kernel_matmul",
    "matmul_cu_configuratie",
    "matmul_reglat",
    "MatmulReglat",
    "CONFIGURATIE_DE_BAZA",
    "flops_matmul",
    "descrie_configuratie",
    "pe_interpretor",
    "produs_cu_epilog",
    "tip_produs_cu_epilog",
    "intrari_produs_cu_epilog",
    "moduri_de_comparat",
    "compilari_pe_moduri",
    "unitate_debit_calcul",
    "etape_compilare_triton",
    "surse_reglare_inductor",
    "tabel_reglare",
    "tabel_configuratii",
    "grafic_configuratii",
    "tabel_moduri",
    "grafic_debite_moduri",
    "inregistreaza_configuratiile",
    "inregistreaza_modurile",
]

_MESAJ_FARA_TRITON = (
    "Pachetul triton nu e instalat pe această mașină (nu există pentru macOS și Windows), așa că "
    "kernel-ul de produs de matrice nu poate rula. Capitolul cere Linux sau Colab; pe Linux: "
    "`pip install triton`."
)


class _TritonLipsa:
    """Ține locul lui `triton` și al lui `triton.language` acolo unde pachetul lipsește: modulul
    se importă, kernel-ul se definește (i se poate citi codul), iar eroarea apare la folosire."""

    constexpr = None  # doar pentru adnotările parametrilor kernel-ului

    def jit(self, functie):
        return _KernelIndisponibil(functie)

    def __getattr__(self, nume):
        raise ModuleNotFoundError(_MESAJ_FARA_TRITON)


class _KernelIndisponibil:
    """Un kernel care nu poate rula fiindcă lipsește triton; `fn` e funcția Python originală."""

    def __init__(self, functie):
        self.fn = functie

    def __getitem__(self, grila):
        raise ModuleNotFoundError(_MESAJ_FARA_TRITON)

    def __call__(self, *argumente, **argumente_numite):
        raise ModuleNotFoundError(_MESAJ_FARA_TRITON)


try:
    import triton
    import triton.language as tl

    ARE_TRITON = True
except ImportError:  # macOS, Windows
    triton = tl = _TritonLipsa()
    ARE_TRITON = False


# ---------------------------------------------------------------------------------------------
# Kernel-ul
# ---------------------------------------------------------------------------------------------


@triton.jit
def kernel_matmul(a_ptr, b_ptr, c_ptr, M, N, K, BM: tl.constexpr, BN: tl.constexpr, BK: tl.constexpr):
    """C = A @ B, pe plăci. A (M × K), B (K × N) și C (M × N) sunt contigue, rând după rând.

    Programul (i, j) al grilei calculează placa BM × BN a lui C care începe la rândul i·BM și
    la coloana j·BN. Parcurge K în pași de BK: la fiecare pas aduce o placă BM × BK din A și una
    BK × BN din B și adună produsul lor la acumulator (float32, în registre). Măștile țin
    deoparte elementele din afara matricelor, ca M, N și K să poată fi oricât.
    """
    randuri = tl.program_id(0) * BM + tl.arange(0, BM)  # rândurile lui C ale acestui program
    coloane = tl.program_id(1) * BN + tl.arange(0, BN)  # coloanele lui C ale acestui program
    acumulator = tl.zeros((BM, BN), dtype=tl.float32)
    for inceput in range(0, K, BK):
        k = inceput + tl.arange(0, BK)
        # A[i, k] stă la adresa i·K + k; B[k, j] la adresa k·N + j
        placa_a = tl.load(
            a_ptr + randuri[:, None] * K + k[None, :],
            mask=(randuri[:, None] < M) & (k[None, :] < K),
            other=0.0,
        )
        placa_b = tl.load(
            b_ptr + k[:, None] * N + coloane[None, :],
            mask=(k[:, None] < K) & (coloane[None, :] < N),
            other=0.0,
        )
        acumulator += tl.dot(placa_a, placa_b)  # produsul plăcilor, pe nucleele tensoriale
    tl.store(
        c_ptr + randuri[:, None] * N + coloane[None, :],
        acumulator.to(c_ptr.dtype.element_ty),
        mask=(randuri[:, None] < M) & (coloane[None, :] < N),
    )


#: Configurația fixă de comparație: plăci mici (16 × 16 × 16), un singur warp, fără preîncărcare.
CONFIGURATIE_DE_BAZA = (
    triton.Config({"BM": 16, "BN": 16, "BK": 16}, num_warps=1, num_stages=1) if ARE_TRITON else None
)


def flops_matmul(M: int, N: int, K: int) -> int:
    """Operațiile în virgulă mobilă ale unui produs (M × K) @ (K × N): câte o înmulțire și o
    adunare pentru fiecare dintre cei M·N·K termeni, adică 2·M·N·K."""
    return 2 * M * N * K


def pe_interpretor() -> bool:
    """Adevărat când `kernel_matmul` rulează prin interpretorul Triton (CPU, TRITON_INTERPRET=1)."""
    return type(kernel_matmul).__name__ == "InterpretedFunction"


def descrie_configuratie(configuratie) -> str:
    """O configurație Triton, pe scurt: „BM=64, BN=64, BK=32, num_warps=4, num_stages=3”."""
    parametri = [f"{nume}={valoare}" for nume, valoare in configuratie.kwargs.items()]
    parametri += [f"num_warps={configuratie.num_warps}", f"num_stages={configuratie.num_stages}"]
    return ", ".join(parametri)


# ---------------------------------------------------------------------------------------------
# Lansarea
# ---------------------------------------------------------------------------------------------


def _cere_triton() -> None:
    if not ARE_TRITON:
        raise ModuleNotFoundError(_MESAJ_FARA_TRITON)


def _pregateste(a: torch.Tensor, b: torch.Tensor):
    """Verifică intrările și alocă ieșirea: întoarce (a, b, c, M, N, K), cu a și b contigue."""
    _cere_triton()
    if not isinstance(a, torch.Tensor) or not isinstance(b, torch.Tensor):
        raise TypeError("A și B trebuie să fie tensori torch.")
    if a.dim() != 2 or b.dim() != 2:
        raise ValueError(f"A și B trebuie să fie matrice (2 dimensiuni); au formele {tuple(a.shape)} și {tuple(b.shape)}.")
    if a.shape[1] != b.shape[0]:
        raise ValueError(
            f"Nu pot înmulți {tuple(a.shape)} cu {tuple(b.shape)}: numărul de coloane al lui A "
            "trebuie să fie egal cu numărul de rânduri al lui B."
        )
    if a.dtype != b.dtype:
        raise TypeError(f"A și B trebuie să aibă același tip; au {a.dtype} și {b.dtype}.")
    if a.device != b.device:
        raise ValueError(f"A și B trebuie să fie pe același dispozitiv; sunt pe {a.device} și {b.device}.")
    if a.device.type == "cpu" and not pe_interpretor():
        raise RuntimeError(
            "Tensorii sunt pe CPU, dar kernel-ul Triton nu rulează prin interpretor. Pe o mașină fără "
            "GPU, TRITON_INTERPRET=1 trebuie pus înainte ca triton să fie încărcat: repornește "
            "kernel-ul Jupyter și rulează întâi celula de pregătire (import curs_compilare)."
        )
    M, K = a.shape
    N = b.shape[1]
    c = torch.empty((M, N), dtype=a.dtype, device=a.device)
    return a.contiguous(), b.contiguous(), c, M, N, K


def matmul_cu_configuratie(a: torch.Tensor, b: torch.Tensor, BM: int, BN: int, BK: int, num_warps: int = 4, num_stages: int = 2) -> torch.Tensor:
    """C = A @ B cu `kernel_matmul`, într-o singură configurație, fixă: plăci BM × BN, pași de BK
    pe dimensiunea comună, `num_warps` warp-uri pe program, `num_stages` etape de preîncărcare.

    Acumularea se face în float32, iar C are tipul lui A. Pentru float32, pe un GPU Ampere sau
    mai nou, `tl.dot` folosește implicit TF32 (rezultate cu vreo 3 zecimale exacte)."""
    a, b, c, M, N, K = _pregateste(a, b)
    grila = (triton.cdiv(M, BM), triton.cdiv(N, BN))
    kernel_matmul[grila](a, b, c, M, N, K, BM=BM, BN=BN, BK=BK, num_warps=num_warps, num_stages=num_stages)
    return c


# ---------------------------------------------------------------------------------------------
# Reglarea automată
# ---------------------------------------------------------------------------------------------

#: De câte ori rulează fiecare configurație, pe CPU, cronometrul de ceas al reglării.
REPETARI_PE_CPU = 3


def _cronometru_pe_cpu(apel, quantiles=None, **_):
    """Înlocuitorul lui `do_bench` sub interpretor: mediana (și cuantilele cerute), în ms, a
    câtorva rulări cronometrate cu `time.perf_counter`. Măsoară interpretorul, nu un GPU."""
    timpi_ms = []
    for _repetare in range(REPETARI_PE_CPU):
        start = time.perf_counter()
        apel()
        timpi_ms.append((time.perf_counter() - start) * 1e3)
    if quantiles is None:
        return statistics.median(timpi_ms)
    return [_cuantila(timpi_ms, q) for q in quantiles]


def _autotune_primeste_do_bench() -> bool:
    try:
        return "do_bench" in inspect.signature(triton.autotune).parameters
    except (TypeError, ValueError):
        return False


def _grila(meta, M, N):
    return (triton.cdiv(M, meta["BM"]), triton.cdiv(N, meta["BN"]))


class MatmulReglat:
    """C = A @ B cu `kernel_matmul` reglat automat peste `configuratii`.

    La primul apel pentru o pereche nouă de dimensiuni (M, N, K) și de tipuri, Triton rulează
    fiecare configurație, o cronometrează și o păstrează pe cea mai rapidă; apelurile următoare
    cu aceleași dimensiuni o folosesc direct, fără să mai măsoare nimic.

    - `reglator` — obiectul `triton.runtime.autotuner.Autotuner` (cu `best_config`,
      `configs_timings`, `cache`);
    - `configuratia_aleasa` — configurația câștigătoare a ultimului apel (None înainte de el);
    - `timpi()` — timpii ultimei reglări, de la cea mai rapidă configurație la cea mai lentă;
    - `doar_prima` — adevărat când, pe CPU, s-a păstrat doar prima configurație (vezi modulul).
    """

    def __init__(self, configuratii):
        _cere_triton()
        configuratii = list(configuratii)
        if not configuratii:
            raise ValueError("Reglarea automată are nevoie de cel puțin o configurație triton.Config.")
        self.configuratii = configuratii
        self.doar_prima = False
        argumente = {}
        if pe_interpretor():
            if _autotune_primeste_do_bench():
                argumente["do_bench"] = _cronometru_pe_cpu
            else:  # triton vechi: nu poate cronometra sub interpretor
                configuratii = configuratii[:1]
                self.doar_prima = True
        self.reglator = triton.autotune(configs=configuratii, key=["M", "N", "K"], **argumente)(kernel_matmul)

    def __call__(self, a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
        a, b, c, M, N, K = _pregateste(a, b)
        self.reglator[lambda meta: _grila(meta, M, N)](a, b, c, M, N, K)
        return c

    @property
    def configuratia_aleasa(self):
        """Configurația folosită la ultimul apel (None dacă funcția n-a fost încă apelată)."""
        return getattr(self.reglator, "best_config", None)

    def timpi(self) -> list:
        """Perechi (configurație, timp median în ms) din ultima reglare, sortate crescător.

        Lista e goală dacă reglarea nu a cronometrat nimic: o singură configurație, o funcție
        încă neapelată sau o versiune de Triton fără atributul `configs_timings`."""
        timpi = getattr(self.reglator, "configs_timings", None) or {}
        perechi = []
        for configuratie, timp in timpi.items():
            if isinstance(timp, (list, tuple)):
                timp = timp[0] if timp else float("nan")
            perechi.append((configuratie, float(timp)))
        return sorted(perechi, key=lambda pereche: pereche[1])

    def __repr__(self) -> str:
        return f"MatmulReglat({len(self.configuratii)} configurații)"


def matmul_reglat(configuratii) -> MatmulReglat:
    """O funcție `f(a, b) -> a @ b` care lansează `kernel_matmul` reglat automat:
    `triton.autotune(configs=configuratii, key=["M", "N", "K"])` aplicat kernel-ului.

    `f.reglator` e obiectul Triton al reglării; după primul apel, `f.configuratia_aleasa` e
    configurația câștigătoare, iar `f.timpi()` dă timpul fiecărei configurații. Pe CPU,
    cronometrarea se face cu ceasul, prin interpretor (vezi descrierea modulului)."""
    return MatmulReglat(configuratii)


# ---------------------------------------------------------------------------------------------
# max-autotune pe un produs de matrice cu epilog (capitolul 05, secțiunea 3)
# ---------------------------------------------------------------------------------------------


def produs_cu_epilog(a: torch.Tensor, b: torch.Tensor, bias: torch.Tensor) -> torch.Tensor:
    """`relu(a @ b + bias)`: un produs de matrice urmat de un epilog punctual (adunarea
    bias-ului, apoi relu). În modul eager: trei kernel-uri; un șablon Triton al lui
    `max-autotune` poate face epilogul chiar înainte să scrie rezultatul."""
    return torch.relu(a @ b + bias)


def tip_produs_cu_epilog() -> torch.dtype:
    """bfloat16 pe un GPU care îl are nativ, float16 pe unul mai vechi (T4, și cel simulat),
    float32 pe procesor: precizia cursului (`modele.precizie_pentru_mediu`), cu float32 în loc
    de „fără autocast”."""
    from ..modele import precizie_pentru_mediu

    return precizie_pentru_mediu() or torch.float32


def intrari_produs_cu_epilog(n: int | None = None, dispozitiv=None, tip: torch.dtype | None = None, samanta: int = 0):
    """Matricele pătrate `a`, `b` (n × n) și vectorul `bias` (n), aleatoare. Implicit, n e 8 192
    pe GPU, 512 pe procesor și 128 în profilul rapid."""
    from ..mediu import dimensiune

    n = n or dimensiune(gpu=8192, cpu=512, rapid=128)
    dispozitiv = dispozitiv or ("cuda" if torch.cuda.is_available() else "cpu")
    tip = tip or tip_produs_cu_epilog()
    generator = torch.Generator(device=dispozitiv).manual_seed(samanta)
    a, b = (torch.randn(n, n, device=dispozitiv, dtype=tip, generator=generator) for _ in range(2))
    return a, b, torch.randn(n, device=dispozitiv, dtype=tip, generator=generator)


def moduri_de_comparat() -> list[str]:
    """Modurile comparate în capitolul 05: „default”, „max-autotune-no-cudagraphs” și, pe un
    GPU, „max-autotune” (grafurile CUDA nu există pe procesor)."""
    return ["default", "max-autotune-no-cudagraphs"] + (["max-autotune"] if torch.cuda.is_available() else [])


def compilari_pe_moduri(a=None, b=None, bias=None, moduri=None, invers: bool = False, repetari: int | None = None):
    """Compilează `produs_cu_epilog` în fiecare mod din `moduri` (`dynamic=False`) și măsoară
    primul apel (`masurare_compilare.compara_compilari`: compilatorul încălzit, cache gol,
    ordine alternată, `repetari` compilări pe mod). Fără intrări, le construiește cu
    `intrari_produs_cu_epilog()`. `invers=True` ia modurile în ordine inversă (pentru testul
    care arată că ordinea nu schimbă rezultatul).

    Implicit, `repetari` e 2, iar în profilul rapid (testele, verificarea de dinaintea orei) 1:
    acolo cifrele nu spun nimic, iar fiecare compilare cu max-autotune reglează din nou, de la
    zero (pe un H200, câteva secunde de fiecare dată)."""
    from ..masurare_compilare import compara_compilari

    if repetari is None:
        repetari = dimensiune(gpu=2, cpu=2, rapid=1)

    if a is None:
        a, b, bias = intrari_produs_cu_epilog()
    moduri = list(moduri or moduri_de_comparat())
    if invers:
        moduri.reverse()
    variante = {mod: (produs_cu_epilog, {"mode": mod, "dynamic": False}) for mod in moduri}
    return compara_compilari(variante, a, b, bias, repetari=repetari)


# ---------------------------------------------------------------------------------------------
# Unitatea debitului de calcul, etapele lui Triton, sursa reglării lui Inductor
# ---------------------------------------------------------------------------------------------

def unitate_debit_calcul(valori_flops_pe_s) -> tuple[str, float]:
    """Unitatea în care se scriu niște debite de calcul date în FLOP/s și factorul ei:
    `("TFLOP/s", 1e12)` pe un GPU, `("GFLOP/s", 1e9)` sau `("MFLOP/s", 1e6)` pe procesor.

    Prefixul e cel al lui `cifre.prefix_comun`: nicio etichetă nu se rotunjește la
    „0 GFLOP/s”. Împarte valorile la factor ca să le desenezi."""
    from ..cifre import prefix_comun

    prefix, factor = prefix_comun(valori_flops_pe_s)
    return f"{prefix}FLOP/s", factor


def etape_compilare_triton() -> list[str]:
    """Etapele prin care Triton compilează un kernel pentru un GPU NVIDIA, citite din backend-ul
    instalat (`CUDABackend.add_stages`): de obicei ttir → ttgir → llir → ptx → cubin. Ultima,
    cubin, e codul mașină pe care driverul CUDA îl încarcă și îl lansează ca pe orice kernel
    CUDA. Lista e goală dacă triton lipsește sau backend-ul nu se poate citi."""
    try:
        from triton.backends.nvidia.compiler import CUDABackend

        sursa = inspect.getsource(CUDABackend.add_stages)
    except Exception:  # triton lipsește, alt backend, altă versiune
        return []
    etape = []
    for etapa in re.findall(r"stages\[[\"'](\w+)[\"']\]", sursa):
        if etapa not in etape:
            etape.append(etapa)
    return etape


#: ce arată fiecare dovadă și unde o cauți: (modulul, funcția, textul căutat), de la versiunile
#: noi la cele vechi; prima găsită câștigă
_SURSE_REGLARE = (
    ("produsele de matrice (șabloanele GEMM), la compilare: intrări aleatoare", (
        ("torch._inductor.select_algorithm", "AlgorithmSelectorCache.generate_example_value", "rand_strided("),
        ("torch._inductor.select_algorithm", "AlgorithmSelectorCache.benchmark_example_value", "rand_strided("),
    )),
    ("celelalte kernel-uri (punctuale, de reducere), la primul apel: argumentele reale", (
        ("torch._inductor.runtime.triton_heuristics", "CachingAutotuner.run", "autotune_to_one_config(*args"),
    )),
    ("înainte de fiecare încercare: clonele tensorilor modificați pe loc", (
        ("torch._inductor.runtime.triton_heuristics", "CachingAutotuner.maybe_clone_args", "clone_preserve_strides("),
        ("torch._inductor.runtime.triton_heuristics", "CachingAutotuner.clone_args", "clone_preserve_strides("),
    )),
)


def _rand_din_sursa(modul: str, functie: str, cauta: str) -> str | None:
    import importlib

    try:
        obiect = importlib.import_module(modul)
        for parte in functie.split("."):
            obiect = getattr(obiect, parte)
        linii = inspect.getsource(obiect).splitlines()
    except Exception:  # altă versiune de PyTorch, triton lipsă
        return None
    return next((r.strip() for r in linii if cauta in r and not r.strip().startswith("#")), None)


def surse_reglare_inductor() -> list[tuple[str, str, str | None]]:
    """Dovada, din sursa Inductor instalată, a datelor pe care reglarea automată își
    cronometrează variantele: triplete (ce arată, funcția, rândul de cod găsit sau None).

    - `AlgorithmSelectorCache.generate_example_value` (select_algorithm.py) construiește cu
      `rand_strided` intrările pe care se cronometrează variantele unui produs de matrice: tensori
      aleatori, cu forma, pașii și tipul intrărilor adevărate (la compilare, datele tale nu
      există încă);
    - `CachingAutotuner.run` (runtime/triton_heuristics.py), la primul apel al unui kernel punctual
      sau de reducere cu mai multe configurații, le cronometrează pe toate
      (`autotune_to_one_config`) chiar pe argumentele apelului;
    - `CachingAutotuner.maybe_clone_args` clonează doar tensorii pe care kernel-ul îi modifică pe
      loc, ca încercările să nu-i strice."""
    gasite = []
    for ce, candidati in _SURSE_REGLARE:
        for modul, functie, cauta in candidati:
            rand = _rand_din_sursa(modul, functie, cauta)
            if rand is not None:
                break
        gasite.append((ce, candidati[0][1] if rand is None else functie, rand))
    return gasite


_RAND_CANDIDAT = re.compile(r"^\s+(\S+) ([\d.]+) ms ([\d.]+)%\s*(.*)$")


def tabel_reglare(linii: list[str], cel_mult: int = 10, latime_configuratie: int = 90) -> list[str]:
    """Tabelul „AUTOTUNE …” pe care Inductor îl scrie la reglarea unui produs de matrice, rescris
    în formatul cursului: antetul (operația, pașii, tipurile) rămâne, iar pentru fiecare candidat —
    numele, timpul măsurat, viteza față de cel mai rapid (100% = câștigătorul) și configurația —
    timpul și procentul se scriu cu virgulă zecimală. `linii` începe cu rândul „AUTOTUNE”; se
    păstrează cel mult `cel_mult` candidați."""
    from ..cifre import format_procent, format_timp

    rezultat, candidati = [], 0
    for linie in linii:
        potrivire = _RAND_CANDIDAT.match(linie)
        if potrivire:
            if candidati == cel_mult:
                break
            candidati += 1
            nume, ms, procent, configuratie = potrivire.groups()
            timp = format_timp(float(ms) / 1e3)
            rezultat.append(f"  {nume:16s} {timp:>9} {format_procent(float(procent) / 100, 1):>7}  "
                            f"{configuratie[:latime_configuratie]}".rstrip())
        elif candidati:
            break  # tabelul s-a terminat
        elif linie.strip():
            rezultat.append(linie.rstrip())
    return rezultat


# ---------------------------------------------------------------------------------------------
# Ce tipărește, ce desenează și ce înregistrează capitolul 05: tabelele, graficele și cifrele
# pentru raportul de referință
# ---------------------------------------------------------------------------------------------


def _nume_tip(tip: torch.dtype) -> str:
    """`torch.bfloat16` → „bfloat16”."""
    return str(tip).removeprefix("torch.")


def tabel_configuratii(debite_configuratii) -> str:
    """Debitul fiecărei configurații reglate (secțiunea 2), câte un rând: configurația și
    FLOP/s, cu prefixul potrivit. `debite_configuratii` e {descriere: FLOP/s}, în ordinea dată
    (de la cea mai rapidă la cea mai lentă)."""
    from ..cifre import cu_prefix

    return "\n".join(f"  {nume:55s} {cu_prefix(valoare, 'FLOP/s'):>16}" for nume, valoare in debite_configuratii.items())


def grafic_configuratii(debite_configuratii, latura: int, tip: torch.dtype):
    """Graficul secțiunii 2: o bară pentru fiecare configurație, cu debitul de calcul în unitatea
    în care nicio valoare nu se rotunjește la „0” (`unitate_debit_calcul`). Întoarce axa."""
    from ..grafice import grafic_latime_banda

    unitate, factor = unitate_debit_calcul(debite_configuratii.values())
    return grafic_latime_banda(
        {nume: valoare / factor for nume, valoare in debite_configuratii.items()},
        titlu=f"Produs de matrice {latura}³ ({_nume_tip(tip)}): fiecare configurație",
        unitate=unitate, marime="debit de calcul",
    )


def tabel_moduri(comparatie_moduri, compilari, debite, varf: float, unitate: str) -> str:
    """Tabelul secțiunii 3: pentru fiecare mod, primul apel (mediana compilărilor și intervalul
    lor; „—” la eager, care nu se compilează), timpul pe apel, debitul în `unitate` și procentul
    din vârful măsurat. `debite` e {mod: (mediana, jos, sus)}, deja în `unitate`, ca și `varf`."""
    from ..cifre import format_numar, format_procent, format_timp

    randuri = [f"{'mod':28s} {'primul apel':>24} {'pe apel':>10} {unitate:>9} {'din vârf':>9}"]
    for mod, m in comparatie_moduri.items():
        if mod in compilari.timpi:
            c = compilari[mod]
            prima = f"{format_timp(c.mediana_s)} ({format_timp(c.minim_runde_s)}–{format_timp(c.maxim_runde_s)})"
        else:
            prima = "—"
        randuri.append(f"{mod:28s} {prima:>24} {format_timp(m.mediana_s):>10} {format_numar(debite[mod][0]):>9} "
                       f"{format_procent(debite[mod][0] / varf):>9}")
    return "\n".join(randuri)


def grafic_debite_moduri(debite, varf: float, unitate: str, n: int, tip: torch.dtype):
    """Graficul secțiunii 3: debitul fiecărui mod pe `relu(a @ b + bias)`, cu intervalul
    rundelor, față de vârful `torch.mm` măsurat. `debite` și `varf` sunt deja în `unitate`.
    Întoarce axa."""
    from ..grafice import grafic_latime_banda

    return grafic_latime_banda(
        {mod: d[0] for mod, d in debite.items()}, varf, titlu=f"relu(a @ b + bias), {n}³, {_nume_tip(tip)}",
        unitate=unitate, marime="debit de calcul", eticheta_plafon="vârful torch.mm măsurat",
        intervale={mod: (d[1], d[2]) for mod, d in debite.items()},
    )


def inregistreaza_configuratiile(debite_configuratii, latura: int) -> None:
    """Cea mai bună și cea mai slabă configurație a lui `kernel_matmul` (doar pe GPU: prin
    interpretor, timpii nu spun nimic), în TFLOP/s. `debite_configuratii` e {descriere: FLOP/s},
    de la cea mai rapidă la cea mai lentă."""
    valori = list(debite_configuratii.values())
    cifre.inregistreaza("05.triton_cea_mai_buna_tflops", valori[0] / 1e12, "TFLOP/s", f"kernel_matmul reglat, cea mai bună configurație, {latura}³ float16")
    cifre.inregistreaza("05.triton_cea_mai_slaba_tflops", valori[-1] / 1e12, "TFLOP/s", f"kernel_matmul, cea mai slabă configurație, {latura}³ float16")


def inregistreaza_modurile(varf_flops: float, debite_flops, compilari, moduri, n: int, tip: torch.dtype) -> None:
    """Secțiunea 3, pe GPU: vârful `torch.mm`, debitul fiecărui mod (cu intervalul rundelor) și
    primul apel (compilarea, cu cache gol) al fiecărui mod compilat. `debite_flops` e
    {mod: (mediana, jos, sus)} în FLOP/s; cifrele se scriu în TFLOP/s."""
    cifre.inregistreaza("05.varf_mm_tflops", varf_flops / 1e12, "TFLOP/s", f"vârful măsurat, torch.mm {n}³ {_nume_tip(tip)}")
    for mod, d in debite_flops.items():
        cifre.inregistreaza(f"05.epilog_{mod}_tflops", d[0] / 1e12, "TFLOP/s", f"relu(a @ b + bias) {n}³, {mod}",
                            interval=(d[1] / 1e12, d[2] / 1e12))
    for mod in moduri:
        cifre.inregistreaza(f"05.compilare_{mod}_s", compilari[mod], "s", f"primul apel (compilare, cache gol), {mod}")
