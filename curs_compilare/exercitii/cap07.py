"""Verificările exercițiilor din capitolul 07 — „Când compilarea merge prost”: diagnoză, trape de
ieșire și acuratețe.

Aici trăiesc și exemplele stricate pe care le diagnostichezi în capitol:

- `FiltruCuPrag` (exercițiul 1): un filtru care, compilat, se recompilează la fiecare prag nou;
- `kernel_exercitiul_2` (exercițiul 2): un kernel Triton punctual, de păstrat în graf cu
  `torch.library.triton_op` și `torch.library.wrap_triton`;
- `bucla_lenta` (exercițiul 4): o buclă compilată mai lentă decât aceeași buclă în modul eager.

Fiecare verificare rulează codul tău pe intrări alese la întâmplare (altele la fiecare rulare;
`CURS_SEMINTA=…` în mediu le fixează) și verifică mecanismul, nu doar rezultatul: câte compilări
au fost, câte întreruperi, dacă graful compilat chiar a rulat, dacă kernel-ul tău chiar s-a lansat.
Codul tău se apelează numai prin `apeleaza` sau în `limita_timp` (din `baza`).
"""

from __future__ import annotations

import contextlib
import inspect
import itertools
import math
import warnings

import torch
import torch.nn as nn

from ..cifre import cu_substantiv, cu_unitate, format_numar, format_timp
from ..inspectie import NumaratorCompilari, categorie_intrerupere
from ..inspectie import motive_recompilare as _motive_recompilare
from .baza import fara_jurnale_torch as _fara_jurnale_torch
from .baza import goleste_dynamo as _goleste_dynamo
from .baza import configuratie_dynamo_implicita
from .baza import configuratia_compilatorului as _configuratia
from .baza import schimbari_configuratie as _schimbari_configuratie
from .baza import (
    NESCRIS,
    GresealaCursant,
    Rezultat,
    apeleaza,
    compara_tensori,
    cu_originalul,
    descrie_garda,
    explica_exceptie,
    generator_aleator,
    limita_timp,
    linia_cursantului,
    traduce_exceptie,
    traduce_mesaj,
    verificare,
)

try:  # triton nu există pe macOS și pe Windows; exercițiul 2 o spune, celelalte merg oricum
    import triton
    import triton.language as tl
except Exception:  # pragma: no cover - depinde de mașină
    triton = tl = None

__all__ = [
    "FiltruCuPrag",
    "kernel_exercitiul_2",
    "referinta_exercitiul_2",
    "bucla_lenta",
    "bucla_eager",
    "intrari_bucla",
    "exercitiul_1",
    "exercitiul_2",
    "exercitiul_3",
    "exercitiul_4",
    "ETAPE",
    "ACCELERARE_MINIMA_4",
]

#: Cât are voie să dureze un apel al codului tău care nu compilează nimic (un constructor, un setter).
LIMITA_APEL_SCURT_S = 5.0
#: Cât are voie să dureze un apel al codului tău care poate compila (cu Inductor, pe un procesor,
#: o compilare durează câteva secunde).
LIMITA_APEL_S = 90.0


# ---------------------------------------------------------------------------------------------
# Unelte comune
# ---------------------------------------------------------------------------------------------


def _contoare():
    return torch._dynamo.utils.counters


def _intreruperi() -> list[str]:
    return list(_contoare()["graph_break"])


def _restaureaza_configuratia(inainte: dict) -> None:
    import torch._inductor.config as config_inductor

    for modul, valori in ((torch._dynamo.config, inainte["torch._dynamo.config"]),
                          (config_inductor, inainte["torch._inductor.config"])):
        for cheie, valoare in valori.items():
            with contextlib.suppress(Exception), warnings.catch_warnings():
                warnings.simplefilter("ignore")
                if getattr(modul, cheie) != valoare:
                    setattr(modul, cheie, valoare)


def _cu_configuratia_implicita(corp, **alte):
    """`corp`, rulat cu opțiunile lui Dynamo de care depinde verificarea la valorile lor implicite
    (`configuratie_dynamo_implicita`), oricum le-ar fi lăsat celulele de mai sus; la sfârșit, puse la loc."""
    def interior():
        with configuratie_dynamo_implicita(**alte):
            return corp()

    return interior


def _mesaj_configuratie(schimbate: list[str]) -> str:
    return (
        f"Codul tău schimbă configurația globală a compilatorului ({', '.join(f'`{s}`' for s in schimbate[:3])}). "
        "O asemenea setare ascunde cauza în loc s-o repare și schimbă comportamentul tuturor funcțiilor "
        "compilate din program, nu doar al clasei tale. Am pus-o la loc. Repară cauza în clasa ta."
    )


def _explica_eroare_compilata(eroare: BaseException) -> str:
    """O eroare apărută când rulează codul tău compilat, spusă pe scurt."""
    exc = getattr(torch._dynamo, "exc", None)
    if exc is not None and isinstance(eroare, getattr(exc, "Unsupported", ())):
        linie = linia_cursantului(eroare)
        unde = f" la linia {linie[0]} (`{linie[1]}`)" if linie and linie[1] else ""
        return (
            f"Cu `fullgraph=True`, Dynamo s-a oprit la o întrerupere a grafului{unde}: "
            f"{categorie_intrerupere(str(eroare))}.{cu_originalul(traduce_exceptie(eroare))}"
        )
    if exc is not None and isinstance(eroare, getattr(exc, "BackendCompilerFailed", ())):
        interioara = getattr(eroare, "inner_exception", None) or eroare.__cause__ or eroare
        return explica_exceptie(interioara, cine="Compilarea codului tău")
    return explica_exceptie(eroare)


def _ruleaza(functie, *argumente, ce: str, limita_s: float | None = None, explica=None, **numite):
    """Apelează (direct sau printr-o funcție compilată) codul cursantului, cu limită de timp și
    fără jurnalele PyTorch pe ecran; o excepție devine `GresealaCursant`, explicată de
    `explica(eroare)` (dacă întoarce un text) sau de `_explica_eroare_compilata`."""
    gradient = torch.is_grad_enabled()
    try:
        with _fara_jurnale_torch(), limita_timp(limita_s if limita_s is not None else LIMITA_APEL_S, ce):
            return functie(*argumente, **numite)
    except GresealaCursant:
        raise
    except Exception as eroare:
        mesaj = explica(eroare) if explica is not None else None
        raise GresealaCursant(mesaj or _explica_eroare_compilata(eroare)) from None
    finally:
        torch.set_grad_enabled(gradient)


def _spatii_globale(*obiecte) -> list[dict]:
    """Spațiile de nume globale (`__globals__`) ale codului cursantului din `obiecte`: funcții,
    clase (metodele lor), operații `torch.library` (funcția din spatele lor)."""
    from .baza import _e_cod_al_cursantului

    functii = []
    for obiect in obiecte:
        if inspect.isclass(obiect):
            for clasa in obiect.__mro__:
                functii += [v for v in vars(clasa).values() if inspect.isfunction(v)]
        else:
            functii.append(obiect)
            interioara = getattr(obiect, "_init_fn", None)  # CustomOpDef: funcția înregistrată
            for functie in (interioara, *(c.cell_contents for c in getattr(interioara, "__closure__", None) or ()
                                          if inspect.isfunction(getattr(c, "cell_contents", None)))):
                if inspect.isfunction(functie):
                    functii.append(functie)
    spatii, vazute = [], set()
    for functie in functii:
        functie = inspect.unwrap(functie) if inspect.isfunction(functie) else functie
        cod = getattr(functie, "__code__", None)
        spatiu = getattr(functie, "__globals__", None)
        if cod is None or spatiu is None or id(spatiu) in vazute or not _e_cod_al_cursantului(cod.co_filename):
            continue
        vazute.add(id(spatiu))
        spatii.append(spatiu)
    return spatii


@contextlib.contextmanager
def _fara_scurtaturi(interzise, *ale_cursantului):
    """Cât ține blocul, funcțiile din `interzise` (tupluri `(modul, nume, mesaj)`: funcția
    verificării cu răspunsul de referință, o unealtă a cursului care face chiar exercițiul) sunt
    înlocuite, în modulul lor și în spațiile de nume ale codului cursantului (`ale_cursantului`),
    cu una care, chemată din codul cursantului, notează folosirea și aruncă
    `GresealaCursant(mesaj)` (chemată din codul cursului, face ce făcea). La ieșire, totul e pus la
    loc; dacă vreuna a fost chemată (chiar dacă un `except` al cursantului a înghițit eroarea),
    aruncă `GresealaCursant(mesaj)`."""
    import sys

    from .baza import _e_cod_al_cursantului

    folosite: list[str] = []
    puse_la_loc = []
    spatii = _spatii_globale(*ale_cursantului)
    for modul, nume, mesaj in interzise:
        originala = getattr(modul, nume)

        def paznic(*argumente, _mesaj=mesaj, _originala=originala, **numite):
            # Verificarea însăși (codul cursului) o poate chema în continuare; codul cursantului, nu.
            if _e_cod_al_cursantului(sys._getframe(1).f_code.co_filename):
                folosite.append(_mesaj)
                raise GresealaCursant(_mesaj)
            return _originala(*argumente, **numite)

        setattr(modul, nume, paznic)
        puse_la_loc.append((vars(modul) if not isinstance(modul, dict) else modul, nume, originala))
        for spatiu in spatii:
            for cheie, valoare in list(spatiu.items()):
                if valoare is originala:
                    spatiu[cheie] = paznic
                    puse_la_loc.append((spatiu, cheie, originala))
    try:
        yield folosite
    finally:
        for spatiu, cheie, originala in reversed(puse_la_loc):
            spatiu[cheie] = originala
    if folosite:
        raise GresealaCursant(folosite[0])


def _mesaj_referinta_privata(nume: str, ce_ceri: str) -> str:
    return (
        f"Ai folosit `verificari.{nume}`, funcția cu care verificarea își calculează răspunsul de referință. "
        f"Exercițiul îți cere {ce_ceri}."
    )


def _pe_gpu() -> bool:
    return torch.cuda.is_available()


def _dispozitiv() -> torch.device:
    return torch.device("cuda" if _pe_gpu() else "cpu")


# ---------------------------------------------------------------------------------------------
# Exercițiul 1: recompilarea care nu vine din forme
# ---------------------------------------------------------------------------------------------


class FiltruCuPrag(nn.Module):
    """O „poartă de zgomot” (*noise gate*) după un strat liniar: păstrează doar valorile al căror
    nivel, în decibeli, trece de prag, și le pune pe celelalte pe 0:

        y = liniar(x)
        ieșire = y acolo unde 20·log10(|y|) > 20·log10(prag), altfel 0

    (adică acolo unde |y| > prag). Pragul se schimbă între apeluri cu `seteaza_prag(valoare)`,
    fără să refaci modulul.

    Compilat, modulul se recompilează la FIECARE prag nou: pornește jurnalul recompilărilor
    (`TORCH_LOGS="recompiles"` sau `torch._logging.set_logs(recompiles=True)`), schimbă pragul de
    câteva ori și citește garda căzută: `self.prag == 0.3`. De ce: pragul e un atribut Python de
    tip float. Dynamo ar ști să-l facă dinamic (în torch 2.11 și 2.14, `specialize_float=False`:
    după prima recompilare, un float devine o intrare simbolică), dar `math.log10` cere o valoare
    Python concretă (printre funcțiile din `math` pe care Dynamo le urmărește simbolic e `log2`,
    nu și `log10`), așa că Dynamo îl specializează: pune în graf valoarea lui ca pe o constantă,
    cu o gardă pe ea. Fiecare prag nou încalcă garda și cere o compilare nouă; după
    `torch._dynamo.config.recompile_limit` (8) compilări, Dynamo renunță și rulează modulul eager.

    Exercițiul 1: scrie `FiltruReparat(nn.Module)` cu aceeași interfață (constructorul
    `(canale)`, `forward(x)`, `seteaza_prag(valoare)`) și același rezultat, care se compilează o
    singură dată pentru oricâte praguri. Verificarea: `verificari.exercitiul_1(FiltruReparat)`.
    """

    def __init__(self, canale: int):
        super().__init__()
        self.liniar = nn.Linear(canale, canale)
        self.prag = 0.5

    def seteaza_prag(self, valoare: float) -> None:
        self.prag = float(valoare)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        y = self.liniar(x)
        nivel_db = 20 * torch.log10(y.abs())
        prag_db = 20 * math.log10(self.prag)  # valoare Python: Dynamo o specializează
        return torch.where(nivel_db > prag_db, y, torch.zeros_like(y))


#: Câte praguri diferite primește filtrul compilat în verificare (cel puțin 6).
NUMAR_PRAGURI = 7
LIMITA_VERIFICARE_1_S = 180.0


def _liniarul(modul: nn.Module, canale: int) -> nn.Linear:
    """Stratul liniar (canale → canale) al filtrului cursantului: după el se socotește referința."""
    liniare = [m for m in modul.modules() if isinstance(m, nn.Linear)]
    potrivite = [m for m in liniare if m.in_features == canale and m.out_features == canale]
    if len(potrivite) != 1 or len(liniare) != 1:
        raise GresealaCursant(
            "Filtrul tău trebuie să aibă, ca `FiltruCuPrag`, un singur strat `nn.Linear(canale, canale)` "
            f"(am găsit {cu_substantiv(len(liniare), 'strat liniar', 'straturi liniare')}). Păstrează stratul "
            "și schimbă doar felul în care ții pragul."
        )
    return potrivite[0]


def _referinta_filtru(liniar: nn.Linear, x: torch.Tensor, prag: float) -> torch.Tensor:
    with torch.no_grad():
        y = liniar(x)
        return torch.where(y.abs() > prag, y, torch.zeros_like(y))


def _intrare_departe_de_prag(liniar, forma, praguri, generator) -> torch.Tensor:
    """O intrare la care nicio valoare |y| nu e la mai puțin de 0,1% de vreun prag (ca o rotunjire
    diferită, dar corectă, a comparației să nu schimbe rezultatul)."""
    for _ in range(50):
        x = torch.randn(forma, generator=generator)
        with torch.no_grad():
            y = liniar(x).abs()
        if all(bool(((y - p).abs() > 1e-3 * p).all()) for p in praguri):
            return x
    return x


def _acest_modul():
    import sys

    return sys.modules[__name__]


def _interzise_1():
    return [(_acest_modul(), "_referinta_filtru", _mesaj_referinta_privata(
        "_referinta_filtru", "să ții pragul într-un tensor în clasa ta, nu să chemi calculul verificării"))]


def _verifica_clasa_filtru(clasa) -> None:
    if clasa is None:
        raise GresealaCursant("Ai dat None: dă verificării clasa ta, `verificari.exercitiul_1(FiltruReparat)`.")
    if isinstance(clasa, nn.Module):
        raise GresealaCursant(
            "Ai dat un obiect (un modul deja construit), nu clasa: scrie `verificari.exercitiul_1(FiltruReparat)`, "
            "fără paranteze după nume."
        )
    if not inspect.isclass(clasa):
        raise GresealaCursant(f"Trebuia o clasă (`class FiltruReparat(nn.Module)`), dar am primit {type(clasa).__name__}.")
    if not issubclass(clasa, nn.Module):
        raise GresealaCursant("Clasa ta trebuie să moștenească `nn.Module`: `class FiltruReparat(nn.Module)`.")
    if clasa is FiltruCuPrag:
        raise GresealaCursant(
            "Ai dat chiar `FiltruCuPrag`, exemplul stricat: el se recompilează la fiecare prag. Scrie clasa ta, "
            "`FiltruReparat`."
        )


def exercitiul_1(FiltruReparat) -> Rezultat:
    """Verifică `FiltruReparat` pe un număr de canale, o intrare și `NUMAR_PRAGURI` praguri alese
    la întâmplare: rulat normal, dă rezultatul lui `FiltruCuPrag` (|y| > prag) la fiecare prag;
    compilat (`torch.compile(modul)`), se compilează o singură dată pentru toate pragurile, fără
    întreruperi, graful compilat rulează la fiecare apel, iar configurația globală a lui Dynamo
    rămâne neatinsă."""

    def corp():
        rng = generator_aleator()
        _verifica_clasa_filtru(FiltruReparat)
        canale = rng.randint(4, 24)
        lot = rng.randint(2, 9)
        praguri = [round(p, 4) for p in (rng.uniform(0.05, 1.5) for _ in range(NUMAR_PRAGURI))]
        while len(set(praguri)) < NUMAR_PRAGURI:
            praguri = [round(rng.uniform(0.05, 1.5), 4) for _ in range(NUMAR_PRAGURI)]
        generator = torch.Generator().manual_seed(rng.randrange(2**31))
        inainte = _configuratia()
        _goleste_dynamo()
        try:
            with _fara_scurtaturi(_interzise_1(), FiltruReparat):
                with torch.random.fork_rng():
                    torch.manual_seed(rng.randrange(2**31))
                    modul = apeleaza(FiltruReparat, canale, limita_s=LIMITA_APEL_SCURT_S,
                                     ce=f"constructorul clasei tale, `FiltruReparat({canale})`,")
                if not callable(getattr(modul, "seteaza_prag", None)):
                    raise GresealaCursant(
                        "Clasei tale îi lipsește metoda `seteaza_prag(self, valoare)`: păstrează interfața lui `FiltruCuPrag`."
                    )
                liniar = _liniarul(modul, canale)
                intrari = [_intrare_departe_de_prag(liniar, (lot, canale), praguri, generator) for _ in praguri]

                # 1. Rulat normal: același rezultat ca FiltruCuPrag, la fiecare prag.
                for prag, x in zip(praguri, intrari):
                    apeleaza(modul.seteaza_prag, prag, limita_s=LIMITA_APEL_SCURT_S, ce="`seteaza_prag`")
                    with torch.no_grad():
                        obtinut = apeleaza(modul, x.clone(), limita_s=LIMITA_APEL_SCURT_S, ce="filtrul tău (rulat normal)")
                    compara_tensori(obtinut, _referinta_filtru(liniar, x, prag),
                                    f"rulat normal, cu pragul {format_numar(prag, 4)}")

                # 2. Compilat: o singură compilare pentru toate pragurile, graful rulat la fiecare apel.
                _goleste_dynamo()
                numarator = NumaratorCompilari()
                compilat = torch.compile(modul, backend=numarator)
                compilari_pe_apel = []
                for prag, x in zip(praguri, intrari):
                    apeleaza(modul.seteaza_prag, prag, limita_s=LIMITA_APEL_SCURT_S, ce="`seteaza_prag`")
                    rulari, compilari = numarator.rulari, numarator.compilari
                    with torch.no_grad():
                        obtinut = _ruleaza(compilat, x.clone(), ce="filtrul tău compilat")
                    compara_tensori(obtinut, _referinta_filtru(liniar, x, prag),
                                    f"compilat, cu pragul {format_numar(prag, 4)}")
                    compilari_pe_apel.append((numarator.rulari - rulari, numarator.compilari - compilari))
                intreruperi = _intreruperi()
                motive = _motive_recompilare()
        finally:
            schimbate = _schimbari_configuratie(inainte)
            _restaureaza_configuratia(inainte)
            _goleste_dynamo()

        if schimbate:
            raise GresealaCursant(_mesaj_configuratie(schimbate))
        if numarator.compilari == 0:
            raise GresealaCursant(
                "Filtrul tău n-a fost compilat deloc: Dynamo n-a capturat niciun graf (l-ai exclus cu "
                "`torch.compiler.disable`?). Așa nu se mai recompilează, dar nici nu mai e compilat: "
                "exercițiul cere un filtru care se compilează o dată și apoi rulează compilat."
            )
        if intreruperi:
            motiv = intreruperi[0]
            raise GresealaCursant(
                f"Graful filtrului tău se întrerupe ({categorie_intrerupere(motiv)}). "
                "Dacă citești pragul cu `.item()`, ieși din lumea tensorilor la fiecare apel: folosește "
                f"tensorul pragului direct în operații (`y.abs() > self.prag`).{cu_originalul(motiv)}"
            )
        if numarator.compilari > 1:
            garda = next((m for m in motive if "prag" in m or "==" in m), motive[0] if motive else "")
            total = cu_substantiv(numarator.compilari, "compilare", "compilări")
            detaliu = f" Garda căzută: {descrie_garda(garda)}." if garda else ""
            sfat = (
                " Pragul e încă un număr Python (float): Dynamo îl face dinamic abia după o primă "
                "recompilare (și îl specializează din nou dacă trece printr-o funcție din `math`). Ține "
                "pragul într-un tensor, un tampon al modulului (`self.register_buffer(\"prag\", torch.tensor(0.5))`), "
                "și schimbă-i valoarea în `seteaza_prag` (`self.prag.fill_(valoare)`): pentru Dynamo, "
                "valoarea unui tensor nu e o gardă."
            )
            raise GresealaCursant(f"Au fost {total} pentru {cu_substantiv(NUMAR_PRAGURI, 'prag', 'praguri')}.{detaliu}{sfat}")
        fara_graf = [i for i, (r, _) in enumerate(compilari_pe_apel) if r == 0]
        if fara_graf:
            raise GresealaCursant(
                f"La {cu_substantiv(len(fara_graf), 'apel', 'apeluri')} din {format_numar(NUMAR_PRAGURI)}, graful "
                "compilat n-a rulat deloc: filtrul a rulat în modul eager, pe lângă `torch.compile`."
            )
        return (
            f"O singură compilare pentru {cu_substantiv(NUMAR_PRAGURI, 'prag', 'praguri')} diferite, fără întreruperi: "
            "pragul e acum o valoare dintr-un tensor, nu o constantă a grafului."
        )

    return verificare("Exercițiul 1", _cu_configuratia_implicita(corp), limita_s=LIMITA_VERIFICARE_1_S)


# ---------------------------------------------------------------------------------------------
# Exercițiul 2: kernel-ul tău Triton rămâne în graf
# ---------------------------------------------------------------------------------------------


def referinta_exercitiul_2(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """Ce calculează `kernel_exercitiul_2`: a · sigmoid(b) (poarta unui GLU), în float32, scris în
    tipul intrărilor."""
    return (a.float() * torch.sigmoid(b.float())).to(a.dtype)


if triton is not None:

    # Kernel-ul exercițiului 2, punctual, în stilul capitolului 03: iesire = a · sigmoid(b),
    # pe `n` elemente consecutive (tensori contigui), câte `BLOCK` elemente pe program; masca
    # acoperă ultimul bloc, când `n` nu e multiplu de `BLOCK`.
    #
    # Exercițiul 2: scrie, cu `torch.library.triton_op("curs07::nume", mutates_args=())`, o
    # operație `operatie(a, b) -> Tensor` care alocă ieșirea (`torch.empty_like(a)`) și lansează
    # kernel-ul prin `torch.library.wrap_triton(kernel_exercitiul_2)[grila](a, b, iesire, n,
    # BLOCK=…)`, cu grila `(triton.cdiv(n, BLOCK),)`. Așa, `torch.compile(..., fullgraph=True)`
    # o păstrează în graf, fără întrerupere, iar Inductor vede kernel-ul (pe GPU, îl găsești în
    # codul generat). Verificarea: `verificari.exercitiul_2(operatie)`.
    #
    # Pe un procesor, Triton rulează prin interpretor (`TRITON_INTERPRET=1`): operația rulează
    # corect în modul eager, dar `wrap_triton` nu poate urmări un kernel interpretat, deci
    # compilarea cu Inductor sau `aot_eager` nu merge acolo. Verificarea compilează atunci doar
    # cu Dynamo (backend-ul „eager”): arată că operația e un singur nod în graf, fără întrerupere.
    # Pe GPU compilează cu Inductor.
    @triton.jit
    def kernel_exercitiul_2(a_ptr, b_ptr, iesire_ptr, n, BLOCK: tl.constexpr):
        offsets = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        masca = offsets < n
        a = tl.load(a_ptr + offsets, mask=masca).to(tl.float32)
        b = tl.load(b_ptr + offsets, mask=masca).to(tl.float32)
        tl.store(iesire_ptr + offsets, a * tl.sigmoid(b), mask=masca)

else:  # pragma: no cover - fără triton
    kernel_exercitiul_2 = None

LIMITA_APEL_2_CPU_S = 30.0
LIMITA_APEL_2_GPU_S = 90.0
LIMITA_VERIFICARE_2_CPU_S = 120.0
LIMITA_VERIFICARE_2_GPU_S = 300.0


def _pe_interpretor() -> bool:
    return kernel_exercitiul_2 is not None and type(kernel_exercitiul_2).__name__ == "InterpretedFunction"


def _programe_si_argumente(obiect, argumente, numite):
    """Din argumentele unei lansări `kernel[grila](...)` (cum ajung la `run`): numărul de programe
    al grilei (produsul dimensiunilor ei, după ce o funcție-grilă e chemată cu argumentele) și
    argumentele kernel-ului, pe nume. Ce nu se poate afla rămâne None."""
    legate = {}
    with contextlib.suppress(Exception):
        semnatura = inspect.signature(getattr(obiect, "fn", obiect))
        parametri = semnatura.parameters
        legate = dict(semnatura.bind_partial(*argumente, **{k: v for k, v in numite.items() if k in parametri}).arguments)
    programe = None
    with contextlib.suppress(Exception):
        grila = numite.get("grid")
        if callable(grila):
            grila = grila(dict(legate))
        if isinstance(grila, int):
            grila = (grila,)
        programe = math.prod(int(d) for d in grila)
    return programe, legate


@contextlib.contextmanager
def _lansari_kernel(fara_tensori_falsi: bool = False, stare_wrap: dict | None = None):
    """Notează lansările lui `kernel_exercitiul_2` (`kernel[grila](...)` ajunge la `run`), câte un
    dicționar pe lansare: `falsi` (argumente „fake”: Dynamo urmărește operația fără date), `prin_wrap`
    (lansat prin rezultatul lui `wrap_triton`, după `stare_wrap` de la `_urmareste_wrap_triton`),
    `programe`, `BLOCK`, `n` și `iesire` (memoria în care scrie kernel-ul). Cu
    `fara_tensori_falsi`, o lansare cu tensori „fake” (interpretorul Triton ar cere memoria lor)
    nu se execută, doar se notează. `numarate["alte"]` numără lansările altor kernel-uri."""
    from torch._subclasses.fake_tensor import FakeTensor

    numarate = {"reale": 0, "falsi": 0, "alte": 0, "lista": []}
    clase = []
    for modul, nume in (("triton.runtime.jit", "JITFunction"), ("triton.runtime.interpreter", "InterpretedFunction")):
        with contextlib.suppress(Exception):
            clasa = getattr(__import__(modul, fromlist=[nume]), nume)
            if "run" in vars(clasa):
                clase.append((clasa, vars(clasa)["run"]))

    def invelis(original):
        def run(obiect, *argumente, **numite):
            if numite.get("warmup"):
                return original(obiect, *argumente, **numite)
            if obiect is not kernel_exercitiul_2:
                numarate["alte"] += 1
                return original(obiect, *argumente, **numite)
            falsi = any(isinstance(v, FakeTensor) for v in (*argumente, *numite.values()))
            programe, legate = _programe_si_argumente(obiect, argumente, numite)
            iesire = legate.get("iesire_ptr")
            numarate["lista"].append({
                "falsi": falsi,
                "prin_wrap": bool(stare_wrap and stare_wrap["prin_wrap"] > 0),
                "programe": programe,
                "BLOCK": legate.get("BLOCK"),
                "n": legate.get("n"),
                "iesire": (iesire.untyped_storage().data_ptr()
                           if isinstance(iesire, torch.Tensor) and not falsi else None),
            })
            if falsi:
                numarate["falsi"] += 1
                if fara_tensori_falsi:
                    return None
            else:
                numarate["reale"] += 1
                a, block = legate.get("a_ptr"), legate.get("BLOCK")
                if (isinstance(programe, int) and isinstance(block, int) and block > 0 and isinstance(a, torch.Tensor)
                        and programe > -(-a.numel() // block)):
                    # O grilă cu programe în plus: verificarea o respinge oricum (`_verifica_grila`), iar
                    # interpretorul Triton ar rula degeaba fiecare program, pe rând.
                    return None
            return original(obiect, *argumente, **numite)

        return run

    for clasa, original in clase:
        clasa.run = invelis(original)
    try:
        yield numarate
    finally:
        for clasa, original in clase:
            clasa.run = original


class _LansatorPrinWrap:
    """Ce întoarce `wrap_triton` cât îl urmărește verificarea: se poartă ca rezultatul adevărat,
    dar notează că lansarea `rezultat[grila](...)` (sau `rezultat.run(...)`) trece prin el."""

    def __init__(self, rezultat, stare: dict):
        self._rezultat = rezultat
        self._stare = stare

    def _cu_semn(self, lansare):
        def lanseaza(*argumente, **numite):
            self._stare["prin_wrap"] += 1
            try:
                return lansare(*argumente, **numite)
            finally:
                self._stare["prin_wrap"] -= 1

        return lanseaza

    def __getitem__(self, grila):
        return self._cu_semn(self._rezultat[grila])

    def __getattr__(self, nume):
        valoare = getattr(self._rezultat, nume)
        return self._cu_semn(valoare) if nume == "run" else valoare


@contextlib.contextmanager
def _urmareste_wrap_triton(*ale_cursantului):
    """Cât ține blocul, `torch.library.wrap_triton` (și orice nume care o leagă în codul
    cursantului) notează kernel-urile primite și întoarce un `_LansatorPrinWrap`. Pe un procesor,
    cu interpretorul, `wrap_triton` întoarce chiar kernel-ul (nu schimbă nimic la rulare), iar în
    modul eager `triton_op` o oprește și pe GPU: singurul semn că lansarea trece prin ea e chiar
    apelul ei."""
    import torch._library.triton as biblioteca_triton

    stare = {"prin_wrap": 0, "kerneluri": []}
    originala = biblioteca_triton.wrap_triton
    originale = {id(f): f for f in (originala, torch.library.wrap_triton, getattr(originala, "__wrapped__", None)) if f}

    def spion(triton_kernel, /):
        stare["kerneluri"].append(triton_kernel)
        return _LansatorPrinWrap(originala(triton_kernel), stare)

    puse_la_loc = [(vars(biblioteca_triton), "wrap_triton", biblioteca_triton.wrap_triton),
                   (vars(torch.library), "wrap_triton", torch.library.wrap_triton)]
    for spatiu in _spatii_globale(*ale_cursantului):
        for cheie, valoare in list(spatiu.items()):
            if id(valoare) in originale and valoare is originale[id(valoare)]:
                puse_la_loc.append((spatiu, cheie, valoare))
    for spatiu, cheie, _ in puse_la_loc:
        spatiu[cheie] = spion
    try:
        yield stare
    finally:
        for spatiu, cheie, valoare in reversed(puse_la_loc):
            spatiu[cheie] = valoare


_TIPARE_TRITON = (
    (r"range must be a power of 2",
     "`BLOCK` trebuie să fie o putere a lui 2 (`tl.arange(0, BLOCK)` o cere): 128, 256, 512, 1024{block}"),
    (r"exceeds triton maximum tensor numel",
     "`BLOCK` e prea mare: un bloc Triton are cel mult 1 048 576 de elemente; 1024 e o alegere bună{block}"),
    (r"Unsupported ptr type|invalid operands of type pointer|pointer<|has no attribute 'dtype'",
     "un argument al kernel-ului nu e ce așteaptă acesta: ordinea e `(a, b, iesire, n, BLOCK=…)`, cu "
     "tensorii înșiși (nu `data_ptr()`) pe primele trei locuri și `n` un întreg Python (`a.numel()`)"),
    (r"cannot be interpreted as an integer|must be an int|'float' object",
     "grila trebuie să fie un tuplu de întregi, `(triton.cdiv(n, BLOCK),)`: `n / BLOCK` dă un număr cu zecimale"),
    (r"missing (?:\d+ )?required (?:positional )?argument",
     "lipsește un argument al kernel-ului: `kernel_exercitiul_2` primește `(a, b, iesire, n, BLOCK=…)`"),
    (r"unexpected keyword argument",
     "un argument are alt nume decât în kernel: `kernel_exercitiul_2(a_ptr, b_ptr, iesire_ptr, n, BLOCK)`"),
)


def _explica_eroare_triton(eroare: BaseException, lansari: dict | None = None) -> str | None:
    """O eroare a lui Triton (a interpretorului, pe un procesor, sau a compilatorului lui, pe GPU),
    spusă în română, cu un indiciu; None dacă eroarea nu vine de la Triton. `lansari` (de la
    `_lansari_kernel`) dă argumentele ultimei lansări (`BLOCK`-ul dat)."""
    import re

    lant, vazute, e = [], set(), eroare
    while e is not None and id(e) not in vazute:
        vazute.add(id(e))
        lant.append(e)
        e = e.__cause__ or (None if e.__suppress_context__ else e.__context__)
    de_la_triton = any(type(x).__module__.startswith("triton") or "triton" in type(x).__name__.lower() for x in lant)
    text = " ".join(" ".join(str(x).split()) for x in lant)
    if not de_la_triton and "kernel_exercitiul_2" not in text:
        return None
    block = ""
    ultima = (lansari or {}).get("lista", [])[-1:]
    if ultima and isinstance(ultima[0].get("BLOCK"), int):
        block = f"; ai dat {ultima[0]['BLOCK']}"
    indiciu = next((sablon.format(block=block) for tipar, sablon in _TIPARE_TRITON if re.search(tipar, text)), None)
    if indiciu is None and not de_la_triton:
        return None
    linie = linia_cursantului(eroare)
    unde = f" la linia {linie[0]} (`{linie[1]}`)" if linie and linie[1] else ""
    original = next((str(x) for x in reversed(lant) if str(x).strip()), type(eroare).__name__)
    if indiciu is None:
        tradus = traduce_mesaj(original, type(lant[-1]))
        indiciu = f"kernel-ul nu s-a putut rula cu argumentele date ({tradus})" if tradus else None
    return (
        f"Triton a oprit lansarea kernel-ului{unde}: "
        + (indiciu if indiciu else "kernel-ul nu s-a putut rula cu argumentele date")
        + f".{cu_originalul(original)}"
    )


def _numele_operatiei(operatie) -> str | None:
    """„curs07::poarta” pentru o operație din `torch.library` (CustomOpDef, OpOverloadPacket,
    OpOverload); None pentru orice altceva."""
    from torch._library.custom_ops import CustomOpDef

    if isinstance(operatie, CustomOpDef):
        return operatie._qualname
    if isinstance(operatie, torch._ops.OpOverload):
        return operatie._schema.name
    if isinstance(operatie, torch._ops.OpOverloadPacket):
        return operatie._qualified_op_name
    return None


def _e_triton_op(operatie, nume: str) -> bool:
    import torch._library.triton as biblioteca_triton

    if nume in getattr(biblioteca_triton, "triton_ops_to_kernels", {}):
        return True
    # Altfel (o versiune fără registrul de mai sus): triton_op se descompune sub FunctionalTensorMode.
    from torch._library.custom_ops import CustomOpDef
    from torch._subclasses.functional_tensor import FunctionalTensorMode

    definitie = operatie if isinstance(operatie, CustomOpDef) else torch._library.custom_ops.OPDEFS.get(nume)
    return definitie is not None and FunctionalTensorMode in getattr(definitie, "_torch_dispatch_fns", {})


def _schema(nume: str):
    spatiu, _, op = nume.partition("::")
    return getattr(getattr(torch.ops, spatiu), op).default._schema


def _forme_exercitiul_2(rng, pe_gpu: bool):
    """Trei forme: un vector mare, de lungime impară (deci multiplu de niciun bloc, iar o grilă
    fixă sau una socotită pentru 1024 de elemente îi lasă coada nescrisă), o matrice și un vector
    mai mic decât un bloc. Pe procesor, vectorul mare are 49 152–65 535 de elemente
    (interpretorul Triton rulează programele pe rând); pe GPU, 1,5–2 milioane."""
    mare = 1 << (21 if pe_gpu else 16)
    n = rng.randrange(mare * 3 // 4, mare) | 1
    return [(n,), (rng.randint(3, 40), rng.randint(3, 90) | 1), (rng.randint(1, 60),)]


def _verifica_operatia(operatie) -> str:
    if operatie is None:
        raise GresealaCursant("Ai dat None: dă verificării operația definită cu `@torch.library.triton_op`.")
    nume = _numele_operatiei(operatie)
    if nume is None:
        if callable(operatie):
            # Ciotul din notebook e o funcție simplă care aruncă NotImplementedError: spune-o pe nume.
            ciot = False
            try:
                with _fara_jurnale_torch():
                    apeleaza(operatie, torch.randn(4), torch.randn(4), limita_s=LIMITA_APEL_2_CPU_S, ce="funcția ta")
            except GresealaCursant as greseala:
                ciot = str(greseala) == NESCRIS
            if ciot:
                raise GresealaCursant(NESCRIS)
            raise GresealaCursant(
                "Ai dat o funcție Python obișnuită, nu o operație din `torch.library`. Exercițiul cere o "
                "operație cu nume, pe care compilatorul o vede întreagă (un nod al grafului) și al cărei kernel "
                "Triton îl vede Inductor. Definește-o cu `@torch.library.triton_op(\"curs07::nume\", "
                "mutates_args=())` și lansează kernel-ul prin `torch.library.wrap_triton(kernel_exercitiul_2)`."
            )
        raise GresealaCursant(f"Trebuia operația ta (o funcție decorată cu `triton_op`), dar am primit {type(operatie).__name__}.")
    if not _e_triton_op(operatie, nume):
        raise GresealaCursant(
            f"Operația `{nume}` e definită cu `torch.library.custom_op`, nu cu `triton_op`. Un `custom_op` e "
            "o cutie neagră pentru compilator: rămâne în graf, dar Inductor nu vede ce e înăuntru. "
            "`triton_op` + `wrap_triton` îi arată kernel-ul Triton, pe care îl poate pune în codul generat."
        )
    try:
        scrise = [a.name for a in _schema(nume).arguments if a.alias_info is not None and a.alias_info.is_write]
    except Exception:
        scrise = []
    if scrise:
        raise GresealaCursant(
            f"Operația ta declară că modifică {', '.join(f'`{s}`' for s in scrise)} (`mutates_args`), dar ea "
            "doar citește intrările și întoarce o ieșire nouă: scrie `mutates_args=()`. O mutație declarată "
            "în plus îl obligă pe compilator la copii și îl împiedică să reordoneze operațiile."
        )
    return nume


def _sfat_coada(obtinut, asteptat) -> str:
    """Dacă doar ultimele elemente sunt greșite, grila nu acoperă ultimul bloc, incomplet."""
    try:
        bune = torch.isclose(obtinut.reshape(-1), asteptat.reshape(-1), rtol=1e-5, atol=1e-6)
        gresite = (~bune).nonzero().reshape(-1)
        prima = int(gresite[0]) if len(gresite) else 0
        coada = len(bune) - prima
        if len(gresite) and prima >= coada and coada <= 4096 and bool((~bune[prima:]).float().mean() > 0.5):
            return (
                f" Primele {cu_substantiv(int(gresite[0]), 'element', 'elemente')} sunt corecte, cele de la sfârșit nu: grila acoperă "
                "ultimul bloc, incomplet? Folosește `triton.cdiv(n, BLOCK)` programe, nu `n // BLOCK`."
            )
    except Exception:
        pass
    return ""


@contextlib.contextmanager
def _wrap_triton_actual(*ale_cursantului):
    """Cât ține blocul, numele din codul cursantului legate de `wrap_triton`-ul dinainte de
    `diagnoza.wrap_triton_pe_interpretor` (un `from torch.library import wrap_triton` scris înainte)
    arată spre cel de acum, care lasă kernel-ul interpretat să treacă (torch 2.11, pe procesor)."""
    actuala = torch.library.wrap_triton
    veche = getattr(actuala, "__wrapped__", None)
    puse_la_loc = []
    if veche is not None:
        for spatiu in _spatii_globale(*ale_cursantului):
            for cheie, valoare in list(spatiu.items()):
                if valoare is veche:
                    spatiu[cheie] = actuala
                    puse_la_loc.append((spatiu, cheie, valoare))
    try:
        yield
    finally:
        for spatiu, cheie, valoare in puse_la_loc:
            spatiu[cheie] = valoare


def _interzise_2():
    return [(_acest_modul(), "referinta_exercitiul_2",
             "Ai folosit `verificari.referinta_exercitiul_2`, calculul în PyTorch cu care verificarea își face "
             "rezultatul așteptat. Rezultatul operației tale trebuie să-l scrie `kernel_exercitiul_2`.")]


def _verifica_grila(lansari: list[dict], numar: int, text: str) -> None:
    """Fiecare lansare trebuie să aibă exact `triton.cdiv(n, BLOCK)` programe, iar `n` dat
    kernel-ului trebuie să fie numărul de elemente al tensorului."""
    for lansare in lansari:
        programe, block, n = lansare["programe"], lansare["BLOCK"], lansare["n"]
        if isinstance(n, int) and n != numar:
            raise GresealaCursant(
                f"Pe forma {text}, tensorul are {cu_substantiv(numar, 'element', 'elemente')}, dar kernel-ului i-ai dat "
                f"`n = {format_numar(n)}`: dă-i `n = a.numel()`, calculat la fiecare apel."
            )
        if not isinstance(programe, int) or not isinstance(block, int) or block <= 0:
            continue
        necesare = -(-numar // block)
        if programe * block < numar:
            raise GresealaCursant(
                f"Pe forma {text} ({cu_substantiv(numar, 'element', 'elemente')}), grila are "
                f"{cu_substantiv(programe, 'program', 'programe')} de câte {cu_substantiv(block, 'element', 'elemente')}, adică "
                f"{format_numar(programe * block)}: ultimele {format_numar(numar - programe * block)} rămân nescrise. "
                f"Grila trebuie socotită din `n` la fiecare apel: `(triton.cdiv(n, BLOCK),)`, aici "
                f"{format_numar(necesare)}."
            )
        if programe > necesare:
            raise GresealaCursant(
                f"Pe forma {text} ({cu_substantiv(numar, 'element', 'elemente')}, `BLOCK={block}`), grila are "
                f"{cu_substantiv(programe, 'program', 'programe')}, dar ajung {format_numar(necesare)}: o grilă fixă "
                "lansează programe care nu au ce face (masca le oprește), iar pe un tensor mai mare n-ar mai "
                "ajunge. Socotește-o din `n`: `(triton.cdiv(n, BLOCK),)`."
            )


def exercitiul_2(operatie) -> Rezultat:
    """Verifică operația `operatie(a, b)`, definită cu `torch.library.triton_op` și
    `wrap_triton(kernel_exercitiul_2)`: e chiar un `triton_op` (nu un `custom_op`, nu o funcție
    simplă), fără mutații declarate; pe trei forme alese la întâmplare (și care nu sunt multipli de
    bloc) dă a · sigmoid(b), nu modifică intrările și chiar lansează `kernel_exercitiul_2`; compilată
    cu `fullgraph=True` rulează fără întrerupere, ca un singur nod al grafului, și dă același rezultat.
    Pe GPU compilează cu Inductor și caută kernel-ul tău în codul generat."""
    pe_gpu = _pe_gpu()

    def corp():
        if kernel_exercitiul_2 is None:
            raise GresealaCursant("Triton nu e instalat pe mașina asta: exercițiul 2 are nevoie de el.")
        if _pe_interpretor():
            from ..capitole.cap07_diagnoza import wrap_triton_pe_interpretor

            wrap_triton_pe_interpretor()  # torch 2.11 refuză kernel-urile interpretate în wrap_triton
        nume = _verifica_operatia(operatie)
        # definiția din torch.library (și pentru `torch.ops.spatiu.nume`): din ea se află funcția ta
        definitie = getattr(torch._library.custom_ops, "OPDEFS", {}).get(nume, operatie)
        with _wrap_triton_actual(definitie):
            return _verifica_exercitiul_2(operatie, nume, definitie)

    def _verifica_exercitiul_2(operatie, nume, definitie):
        rng = generator_aleator()
        generator = torch.Generator().manual_seed(rng.randrange(2**31))
        dispozitiv = _dispozitiv()
        limita = LIMITA_APEL_2_GPU_S if pe_gpu else LIMITA_APEL_2_CPU_S
        cazuri = []
        for forma in _forme_exercitiul_2(rng, pe_gpu):
            a = torch.randn(forma, generator=generator).to(dispozitiv)
            b = torch.randn(forma, generator=generator).mul(3).to(dispozitiv)
            cazuri.append((forma, a, b))

        # 1. Rulată normal: rezultat corect, intrări neatinse, kernel-ul chiar lansat, prin wrap_triton,
        #    cu grila care acoperă exact tensorul, iar rezultatul e chiar memoria scrisă de kernel.
        for forma, a, b in cazuri:
            text = " × ".join(format_numar(d) for d in forma)
            copii = (a.clone(), b.clone())
            with _fara_scurtaturi(_interzise_2(), definitie), _urmareste_wrap_triton(definitie) as wrap, \
                    _lansari_kernel(stare_wrap=wrap) as lansari:
                obtinut = _ruleaza(operatie, a, b, ce=f"operația ta (pe forma {text})", limita_s=limita,
                                   explica=lambda eroare: _explica_eroare_triton(eroare, lansari))
            if not (torch.equal(a, copii[0]) and torch.equal(b, copii[1])):
                raise GresealaCursant(
                    f"Operația ta a modificat o intrare (pe forma {text}): scrie rezultatul într-un tensor nou, "
                    "`iesire = torch.empty_like(a)`, nu peste `a` sau `b`."
                )
            reale = [l for l in lansari["lista"] if not l["falsi"]]
            if not reale:
                alt = " (a lansat alt kernel)" if lansari["alte"] else ""
                raise GresealaCursant(
                    f"`kernel_exercitiul_2` nu s-a lansat deloc{alt}: operația calculează altfel. Exercițiul "
                    "cere chiar kernel-ul dat, lansat prin `wrap_triton(kernel_exercitiul_2)[grila](…)`."
                )
            if any(not l["prin_wrap"] for l in reale):
                raise GresealaCursant(
                    "Operația ta lansează `kernel_exercitiul_2` direct (`kernel_exercitiul_2[grila](…)`), nu prin "
                    "`torch.library.wrap_triton`. Rulată normal, dă același rezultat, dar compilatorul nu vede "
                    "lansarea: Dynamo și AOTAutograd urmăresc operația cu tensori fără date, iar un kernel lansat "
                    "direct ar cere memoria lor. Scrie `torch.library.wrap_triton(kernel_exercitiul_2)[grila](a, b, "
                    "iesire, n, BLOCK=…)`."
                )
            numar = a.numel()
            _verifica_grila(reale, numar, text)
            asteptat = referinta_exercitiul_2(a, b)
            try:
                compara_tensori(obtinut, asteptat, f"pe forma {text}", rtol=1e-5, atol=1e-6)
            except GresealaCursant as greseala:
                raise GresealaCursant(str(greseala) + _sfat_coada(obtinut, asteptat)) from None
            scrise = {l["iesire"] for l in reale if l["iesire"] is not None}
            if scrise and obtinut.untyped_storage().data_ptr() not in scrise:
                raise GresealaCursant(
                    f"Pe forma {text}, valorile sunt corecte, dar tensorul întors nu e cel în care a scris kernel-ul: "
                    "rezultatul vine din alt calcul. Întoarce chiar tensorul `iesire` dat kernel-ului."
                )

        # 2. Compilată cu fullgraph=True: fără întrerupere, un singur nod, același rezultat.
        _goleste_dynamo()
        forma, a, b = cazuri[1]  # matricea: pe procesor, interpretorul rulează repede
        text = " × ".join(format_numar(d) for d in forma)

        def cu_operatia(a, b):
            return operatie(a, b) * 2.0

        try:
            if pe_gpu:
                from torch._inductor.utils import run_and_get_code

                compilata = torch.compile(cu_operatia, fullgraph=True, backend="inductor")
                with _lansari_kernel():
                    obtinut, coduri = _ruleaza(run_and_get_code, compilata, a, b,
                                               ce="operația ta compilată cu Inductor", limita_s=limita,
                                               explica=_explica_eroare_triton)
                compara_tensori(obtinut, referinta_exercitiul_2(a, b) * 2.0, f"compilată, pe forma {text}",
                                rtol=1e-5, atol=1e-6)
                if not any("kernel_exercitiul_2" in cod for cod in coduri):
                    raise GresealaCursant(
                        "Compilată cu Inductor, operația ta a dat rezultatul corect, dar `kernel_exercitiul_2` nu "
                        "apare în codul generat: Inductor n-a văzut kernel-ul. Lansează-l prin "
                        "`torch.library.wrap_triton(kernel_exercitiul_2)` în corpul operației."
                    )
                detaliu = "Inductor a pus kernel-ul tău în codul generat."
            else:
                numarator = NumaratorCompilari()
                compilata = torch.compile(cu_operatia, fullgraph=True, backend=numarator)
                with _lansari_kernel(fara_tensori_falsi=True) as lansari:
                    obtinut = _ruleaza(compilata, a, b, ce="operația ta compilată", limita_s=limita,
                                       explica=_explica_eroare_triton)
                compara_tensori(obtinut, referinta_exercitiul_2(a, b) * 2.0, f"compilată, pe forma {text}",
                                rtol=1e-5, atol=1e-6)
                if numarator.compilari != 1 or numarator.rulari == 0:
                    raise GresealaCursant(
                        f"Compilată, funcția cu operația ta a dat {cu_substantiv(numarator.compilari, 'graf', 'grafuri')} "
                        "în loc de unul, care să ruleze la apel."
                    )
                noduri = [n for n in numarator.grafuri[0].graph.nodes if n.op == "call_function"]
                ale_operatiei = [n for n in noduri if nume.replace("::", ".") in str(n.target)]
                if len(ale_operatiei) != 1:
                    raise GresealaCursant(
                        f"În graful capturat, operația `{nume}` nu apare ca un singur nod: Dynamo a intrat în ea "
                        "în loc s-o păstreze întreagă."
                    )
                if lansari["reale"] == 0:
                    raise GresealaCursant("Compilată, operația ta n-a mai lansat `kernel_exercitiul_2`.")
                detaliu = (
                    "Pe procesor, Triton rulează prin interpretor, iar verificarea a compilat doar cu Dynamo: "
                    f"operația e un singur nod în graf (`{nume.replace('::', '.')}`). Pe un GPU, verificarea "
                    "compilează cu Inductor și îți caută kernel-ul în codul generat."
                )
        finally:
            _goleste_dynamo()
        return (
            f"Operația `{nume}` e un `triton_op`, lansează `kernel_exercitiul_2` și dă rezultatul corect pe "
            f"{cu_substantiv(len(cazuri), 'formă', 'forme')} (și când lungimea nu e multiplu de bloc); cu "
            f"`fullgraph=True` rulează fără întrerupere. {detaliu}"
        )

    return verificare("Exercițiul 2", corp, limita_s=LIMITA_VERIFICARE_2_GPU_S if pe_gpu else LIMITA_VERIFICARE_2_CPU_S)


# ---------------------------------------------------------------------------------------------
# Exercițiul 4: compilat, dar mai lent decât eager
# ---------------------------------------------------------------------------------------------

#: Constantele pasului de optimizare din `bucla_lenta` (și din `bucla_eager`).
RATA_INVATARE = 0.05
INERTIE = 0.9
PRAG_GRADIENT = 1.0


def _pas_cu_intreruperi(w, viteza, x, tinta):
    """Un pas de coborâre pe gradient cu inerție (*momentum*) și tăierea gradientului, pentru
    regresia liniară x @ w ≈ tinta (gradientul scris de mână, fără autograd). Întoarce
    `(w, viteza, pierdere)`, cu pierderea ca număr Python. Iese de două ori din lumea
    tensorilor: `pierdere.item()` (pierderea, notată și verificată să fie finită, ca într-o buclă de
    antrenare care se oprește dacă diverge) și `norma.item()` într-un `if`."""
    eroare = x @ w - tinta
    pierdere = (eroare * eroare).mean()
    valoare = pierdere.item()  # întreruperea 1 (și o sincronizare cu GPU-ul)
    if not math.isfinite(valoare):
        raise FloatingPointError("pierderea nu mai e un număr finit: antrenarea a divergat")
    gradient = x.T @ eroare * (2.0 / x.shape[0])
    norma = torch.linalg.vector_norm(gradient)
    if norma.item() > PRAG_GRADIENT:  # întreruperea 2 (și încă o sincronizare)
        gradient = gradient * (PRAG_GRADIENT / norma)
    viteza = INERTIE * viteza + gradient
    w = w - RATA_INVATARE * viteza
    return w, viteza, valoare


_pas_compilat = torch.compile(_pas_cu_intreruperi)


def bucla_lenta(w: torch.Tensor, x: torch.Tensor, tinta: torch.Tensor, pasi: int):
    """Exemplul stricat al exercițiului 4: `pasi` pași de optimizare mici, fiecare compilat cu
    `torch.compile`, și totuși mai lenți decât în modul eager (pe un GPU și pe un procesor).

    Întoarce `(w_final, pierderi)`: greutățile după ultimul pas și un tensor cu pierderea de la
    fiecare pas (`pasi` valori, pe dispozitivul și în tipul lui `w`).

    De ce e lentă: pasul compilat (`_pas_cu_intreruperi`) citește două valori cu `.item()`:
    pierderea, ca s-o noteze într-o listă Python și să verifice că e finită, și norma gradientului,
    ca să decidă în Python dacă îl taie. Fiecare `.item()` întrerupe graful și oprește ospătarul
    până termină GPU-ul (o sincronizare): lansările nu se mai pot suprapune cu calculul. Pasul se
    rupe astfel în mai multe grafuri mici (până la pierdere; gradientul și norma lui; tăierea și
    actualizarea, cu câte o funcție de reluare pentru fiecare bucată), fiecare cu gărzile și
    învelișul lui: în urma profilerului vezi, la fiecare pas, mai multe regiuni
    „Torch-Compiled Region”, una în alta (fiecare funcție de reluare e chemată din cea de dinainte),
    cu Python eager și așteptări între grafuri. Pe pași atât de mici, costul fix al grafurilor și
    al celor două sincronizări mănâncă tot câștigul fuziunii.

    Exercițiul 4: scrie `bucla_reparata(w, x, tinta, pasi)` cu același rezultat (tăierea
    gradientului cu `torch.where` sau `torch.clamp`, pierderile păstrate ca tensori și puse
    laolaltă la sfârșit cu `torch.stack`), compilată fără întreruperi și fără recompilări de la un
    apel la altul. Verificarea: `verificari.exercitiul_4(bucla_reparata)`; pe GPU, bucla ta trebuie
    să fie de cel puțin 1,2 ori mai rapidă decât `bucla_eager` (aceeași buclă, necompilată)."""
    viteza = torch.zeros_like(w)
    pierderi: list[float] = []
    for _ in range(pasi):
        w, viteza, pierdere = _pas_compilat(w, viteza, x, tinta)
        pierderi.append(pierdere)
    return w, torch.tensor(pierderi, dtype=w.dtype, device=w.device)


def bucla_eager(w: torch.Tensor, x: torch.Tensor, tinta: torch.Tensor, pasi: int):
    """Aceeași buclă ca `bucla_lenta`, necompilată: referința de rezultat și de viteză."""
    viteza = torch.zeros_like(w)
    pierderi: list[float] = []
    for _ in range(pasi):
        w, viteza, pierdere = _pas_cu_intreruperi(w, viteza, x, tinta)
        pierderi.append(pierdere)
    return w, torch.tensor(pierderi, dtype=w.dtype, device=w.device)


def intrari_bucla(exemple: int | None = None, caracteristici: int | None = None, pasi: int | None = None,
                  dispozitiv=None, semanta: int = 0):
    """Intrările buclei: `(w, x, tinta, pasi)`, o regresie liniară mică (implicit: 512 exemple cu
    64 de caracteristici și 50 de pași pe GPU, 64 × 16 și 20 de pași pe procesor). Primii pași taie
    gradientul (norma lui trece de `PRAG_GRADIENT`), ultimii nu."""
    dispozitiv = torch.device(dispozitiv) if dispozitiv is not None else _dispozitiv()
    pe_gpu = dispozitiv.type == "cuda"
    exemple = exemple or (512 if pe_gpu else 64)
    caracteristici = caracteristici or (64 if pe_gpu else 16)
    pasi = pasi or (50 if pe_gpu else 20)
    generator = torch.Generator().manual_seed(semanta)
    x = torch.randn(exemple, caracteristici, generator=generator)
    w_adevarat = torch.randn(caracteristici, generator=generator) / math.sqrt(caracteristici)
    tinta = x @ w_adevarat + 0.1 * torch.randn(exemple, generator=generator)
    w = torch.zeros(caracteristici)
    return w.to(dispozitiv), x.to(dispozitiv), tinta.to(dispozitiv), pasi


# ---------------------------------------------------------------------------------------------
# Exercițiul 3: etapa care schimbă rezultatul
# ---------------------------------------------------------------------------------------------

#: Etapele bisecției, de la cea mai simplă la Inductor.
ETAPE = ("eager", "aot_eager", "aot_eager_decomp_partition", "inductor")
#: Pe GPU, bucla reparată trebuie să fie de cel puțin atâtea ori mai rapidă decât eager.
ACCELERARE_MINIMA_4 = 1.2


#: Toleranțele implicite ale lui `torch.testing.assert_close` (rtol, atol), după tip.
_TOLERANTE = {torch.float32: (1.3e-6, 1e-5), torch.float64: (1e-7, 1e-7)}
LIMITA_APEL_3_S = 120.0
LIMITA_VERIFICARE_3_S = 300.0
_contor_etape = itertools.count()


def _functie_sintetica(x, y):
    """Funcția pe care o compilează cazurile construite ale verificării."""
    return torch.sin(x) * y + torch.cos(y) * 0.5


def _functie_aleatoare(x):
    """Cazul real: un zgomot uniform adăugat intrării. Sămânța e fixată la fiecare apel, deci
    modul eager, `aot_eager` și `aot_eager_decomp_partition` (care cheamă același generator ca
    eager) dau aceleași numere; Inductor își generează singur numerele aleatoare (alt algoritm,
    Philox), deci dă altele, dacă nu pui `torch._inductor.config.fallback_random = True`."""
    torch.manual_seed(1234)
    return x + torch.rand_like(x)


#: De câte ori a primit un graf de compilat fiecare backend înregistrat de verificare.
_compilari_etape: dict[str, int] = {}


def _backend_care_strica(factor: float, nume: str):
    """Un backend care rulează graful și adaugă la fiecare ieșire `factor` toleranțe (cea
    implicită a lui `assert_close` pentru valoarea respectivă): sub 1, rezultatul încă trece
    comparația cu eager; peste 1, nu mai trece."""

    def compilator(gm, exemple):
        _compilari_etape[nume] = _compilari_etape.get(nume, 0) + 1
        def ruleaza(*argumente):
            iesiri = gm(*argumente)
            noi = []
            for t in iesiri:
                if isinstance(t, torch.Tensor) and t.dtype in _TOLERANTE and factor:
                    rtol, atol = _TOLERANTE[t.dtype]
                    t = t + factor * (atol + rtol * t.abs())
                noi.append(t)
            return type(iesiri)(noi) if isinstance(iesiri, (tuple, list)) else noi[0]

        return ruleaza

    return compilator


#: Backend-urile cerute de codul cursantului prin `torch.compile(..., backend=…)`, în cazul curent.
_backenduri_cerute: list = []


@contextlib.contextmanager
def _urmareste_torch_compile():
    """Notează backend-urile cu care codul cursantului cheamă `torch.compile`."""
    original = torch.compile

    def compile_urmarit(*argumente, **numite):
        _backenduri_cerute.append(numite.get("backend", "inductor"))
        return original(*argumente, **numite)

    _backenduri_cerute.clear()
    torch.compile = compile_urmarit
    try:
        yield
    finally:
        torch.compile = original


def _inregistreaza(factor: float, registru: list) -> str:
    nume = f"curs07_etapa_{next(_contor_etape)}"
    _compilari_etape[nume] = 0
    torch._dynamo.register_backend(_backend_care_strica(factor, nume), name=nume)
    registru.append(nume)
    return nume


def _dezinregistreaza(registru: list) -> None:
    from torch._dynamo.backends import registry

    for nume in registru:
        registry._COMPILER_FNS.pop(nume, None)
        _compilari_etape.pop(nume, None)
    registru.clear()


def _cazuri_exercitiul_3(rng, registru: list):
    """Cazurile construite, într-o ordine nouă la fiecare rulare. Fiecare: (descriere, etape,
    răspunsul așteptat, tipul de date, ce greșeală separă)."""
    def etape_cu(factori):
        return ("eager", *(_inregistreaza(f, registru) for f in factori))

    cazuri = []
    # O singură etapă stricată, la o poziție aleatoare, într-o listă de 4 etape.
    factori = [0.0, 0.0, 0.0]
    k = rng.randrange(3)
    factori[k] = rng.uniform(3.0, 10.0)
    etape = etape_cu(factori)
    cazuri.append(("o singură etapă schimbă rezultatul", etape, etape[k + 1], torch.float32, None))
    # Două etape stricate: răspunsul e prima.
    etape = etape_cu([0.0, rng.uniform(3.0, 10.0), rng.uniform(3.0, 10.0)])
    cazuri.append(("două etape schimbă rezultatul", etape, etape[2], torch.float32, "ultima"))
    # Nicio etapă nu iese din toleranță (una se abate puțin, sub toleranță).
    etape = etape_cu([0.0, rng.uniform(0.2, 0.5), 0.0])
    cazuri.append(("nicio etapă nu iese din toleranță", etape, None, torch.float32, "exact"))
    # Derivă: fiecare etapă se abate puțin față de cea dinainte, abia a treia iese din toleranța față de eager.
    etape = etape_cu([0.0, 0.6, 1.25])
    cazuri.append(("abaterile se adună de la o etapă la alta", etape, etape[3], torch.float32, "anterioara"))
    # Altă lungime a listei și float64 (alte toleranțe implicite).
    lungime = rng.choice((2, 3, 5))
    factori = [0.0] * (lungime - 1)
    k = rng.randrange(lungime - 1)
    factori[k] = rng.uniform(3.0, 10.0)
    etape = etape_cu(factori)
    cazuri.append((f"{cu_substantiv(lungime, 'etapă', 'etape')}, în float64", etape, etape[k + 1], torch.float64, "fixa"))
    rng.shuffle(cazuri)
    return cazuri


def _prima_etapa_diferita(functie, intrari, etape):
    """Bisecția verificării (cea de referință), cu Dynamo golit înaintea fiecărei etape."""
    with _fara_jurnale_torch():
        asteptat = functie(*intrari)
        for etapa in etape:
            torch._dynamo.reset()
            obtinut = torch.compile(functie, backend=etapa)(*intrari)
            try:
                torch.testing.assert_close(obtinut, asteptat)
            except AssertionError:
                return etapa
            finally:
                torch._dynamo.reset()
    return None


def _limita_recompilari() -> int:
    """`recompile_limit` (numele nou) sau `cache_size_limit` (cel vechi)."""
    config = torch._dynamo.config
    return int(getattr(config, "recompile_limit", None) or getattr(config, "cache_size_limit", 8))


def _descrie_raspuns(raspuns) -> str:
    return "None" if raspuns is None else f"„{raspuns}”"


def _diagnostic_3(descriere, etape, asteptat, raspuns, separa) -> str:
    baza = f"În cazul „{descriere}” (etapele {', '.join(etape)}), ai întors {_descrie_raspuns(raspuns)}, dar "
    baza += "nicio etapă nu schimbă rezultatul (trebuia None)." if asteptat is None else f"prima etapă care schimbă rezultatul e „{asteptat}”."
    if raspuns is not None and raspuns not in etape:
        return baza + " Răspunsul tău nu e nici măcar una dintre etapele primite: folosește lista `etape`, nu una scrisă de tine."
    cerute = set(_backenduri_cerute)
    necompilate = [e for e in etape if e in _compilari_etape and e in cerute and not _compilari_etape[e]]
    if necompilate:
        return baza + (
            f" Ai cerut etapa „{necompilate[0]}”, dar Dynamo n-a mai compilat funcția cu ea: fără "
            "`torch._dynamo.reset()` înainte de fiecare etapă, compilările aceleiași funcții se adună, iar după "
            f"`torch._dynamo.config.recompile_limit` ({format_numar(_limita_recompilari())}) Dynamo "
            "renunță și o rulează eager: etapa stricată pare corectă."
        )
    if not any(_compilari_etape.get(e) for e in etape):
        return baza + (
            " N-ai compilat funcția cu niciuna dintre etapele primite: folosește lista `etape` (argumentul), nu "
            "una scrisă de tine, și compilează cu `torch.compile(functie, backend=etapa)`."
        )
    if raspuns is not None and (asteptat is None or etape.index(raspuns) < etape.index(asteptat)):
        return baza + (
            f" Etapa „{raspuns}” se abate de la eager mai puțin decât toleranța: compari exact (`==`, "
            "`torch.equal`) sau cu toleranțe prea strânse? Compară cu `torch.testing.assert_close`, cu "
            "toleranțele lui implicite."
        )
    if separa == "ultima" and raspuns is not None and asteptat is not None and etape.index(raspuns) > etape.index(asteptat):
        return baza + " Ai întors o etapă de după ea: oprește-te la prima etapă care diferă de eager."
    if separa == "anterioara" and raspuns is None:
        return baza + (
            " Fiecare etapă se abate puțin față de cea dinainte, dar abaterile se adună: compari cu etapa "
            "anterioară în loc de eager? Referința e mereu rezultatul necompilat."
        )
    if separa == "fixa" and raspuns is None:
        return baza + (
            " În float64, toleranțele implicite ale lui `assert_close` sunt mai strânse decât în float32: ai "
            "scris toleranțe fixe? Lasă `rtol` și `atol` nespecificate, ca să le aleagă după tipul de date."
        )
    return baza


_MESAJ_SCURTATURA_3 = (
    "Ai folosit `diagnoza.compara_etape`, unealta cursului care face chiar bisecția cerută. Exercițiul îți "
    "cere să scrii tu bucla: compilezi cu fiecare etapă, rulezi și compari cu referința eager."
)


def _interzise_3():
    """Scurtăturile exercițiului 3: unealta cursului care face bisecția (`diagnoza.compara_etape`) și
    bisecția de referință a verificării (`_prima_etapa_diferita`)."""
    from ..capitole import cap07_diagnoza as diagnoza

    return [
        (diagnoza, "compara_etape", _MESAJ_SCURTATURA_3),
        (_acest_modul(), "_prima_etapa_diferita", _mesaj_referinta_privata(
            "_prima_etapa_diferita", "să scrii tu bucla: compilezi cu fiecare etapă, rulezi și compari cu referința eager")),
    ]


def exercitiul_3(etapa_care_schimba) -> Rezultat:
    """Verifică `etapa_care_schimba(functie, intrari, etape=ETAPE)` pe cinci cazuri construite (cu
    backend-uri înregistrate de verificare, care strică rezultatul la etape alese la întâmplare, cu
    abateri peste sau sub toleranță, liste de alte lungimi, float32 și float64) și pe un caz real:
    numerele aleatoare ale lui Inductor, față de eager (răspunsul: „inductor”).

    Cazurile construite compilează aceeași funcție cu câte 2–5 backend-uri, fără ca verificarea să
    golească Dynamo între ele. Fiecare backend nou cere o compilare nouă a funcției (Dynamo ține
    minte backend-ul în fiecare intrare a cache-ului), dar ele se adună: fără `torch._dynamo.reset()`
    înaintea fiecărei etape, după `recompile_limit` (8) compilări ale aceleiași funcții Dynamo nu mai
    compilează și o rulează eager, iar o etapă stricată pare corectă. Greșelile numite de mesaje:
    comparația cu etapa anterioară (abateri care se adună), ultima etapă în loc de prima, comparația
    exactă, toleranțele fixe de float32 pe date float64, lista de etape fixă, Dynamo negolit.

    Verificarea își pune singură opțiunile pe care se sprijină (`configuratie_dynamo_implicita`:
    limita de 8 recompilări, fără eroare la recompilare, atitudinea implicită, iar
    `torch._inductor.config.fallback_random = False`), oricum le-ar fi lăsat celulele de mai sus, și
    le pune la loc la sfârșit, și când funcția ta aruncă o excepție."""

    def corp():
        if not callable(etapa_care_schimba):
            raise GresealaCursant(f"Trebuia o funcție, dar am primit {type(etapa_care_schimba).__name__}.")
        rng = generator_aleator()
        generator = torch.Generator().manual_seed(rng.randrange(2**31))
        registru: list[str] = []
        inainte = _configuratia()
        _goleste_dynamo()
        try:
            for descriere, etape, asteptat, tip, separa in _cazuri_exercitiul_3(rng, registru):
                forma = (rng.randint(2, 9), rng.randint(2, 9))
                intrari = (torch.randn(forma, generator=generator, dtype=tip),
                           torch.randn(forma, generator=generator, dtype=tip))
                with _urmareste_torch_compile(), _fara_scurtaturi(_interzise_3(), etapa_care_schimba):
                    raspuns = _ruleaza(etapa_care_schimba, _functie_sintetica, intrari, etape=etape,
                                       ce=f"funcția ta (pe cazul „{descriere}”)", limita_s=LIMITA_APEL_3_S)
                if raspuns is not None and not isinstance(raspuns, str):
                    raise GresealaCursant(
                        f"În cazul „{descriere}” ai întors {type(raspuns).__name__}; trebuia numele etapei (un "
                        "text din `etape`) sau None."
                    )
                if raspuns != asteptat:
                    raise GresealaCursant(_diagnostic_3(descriere, etape, asteptat, raspuns, separa))
            # Cazul real: numerele aleatoare ale lui Inductor, pe dispozitivul cursului. Răspunsul îl află
            # verificarea, rulând ea etapele (pe torch 2.11 și 2.14, pe procesor și pe GPU: „inductor”).
            x = torch.randn(rng.randint(64, 512), generator=generator).to(_dispozitiv())
            asteptat = _prima_etapa_diferita(_functie_aleatoare, (x,), ETAPE)
            with _fara_scurtaturi(_interzise_3(), etapa_care_schimba):
                raspuns = _ruleaza(etapa_care_schimba, _functie_aleatoare, (x,),
                                   ce="funcția ta (pe cazul real, cu numere aleatoare)", limita_s=LIMITA_APEL_3_S)
            if raspuns != asteptat:
                raise GresealaCursant(
                    f"Pe cazul real (o funcție cu `torch.rand_like`, cu sămânța fixată) ai întors "
                    f"{_descrie_raspuns(raspuns)}, dar etapa care schimbă rezultatul e {_descrie_raspuns(asteptat)}"
                    + (": Inductor își generează singur numerele aleatoare." if asteptat == "inductor" else ".")
                )
        finally:
            schimbate = _schimbari_configuratie(inainte)
            _restaureaza_configuratia(inainte)
            _dezinregistreaza(registru)
            _goleste_dynamo()
        if schimbate:
            raise GresealaCursant(_mesaj_configuratie(schimbate))
        real = (
            "Inductor generează alte numere aleatoare decât eager (cu `torch._inductor.config.fallback_random = "
            "True` le-ar genera pe aceleași)." if asteptat == "inductor" else
            f"acolo, prima etapă care schimbă rezultatul e {_descrie_raspuns(asteptat)}."
        )
        return (
            "Găsești prima etapă care schimbă rezultatul, cu toleranțele potrivite tipului de date, pe cazurile "
            f"construite și pe cel real: {real}"
        )

    # Verificarea se sprijină pe limita implicită de recompilări (8): fără `torch._dynamo.reset()`
    # între etape, compilările se adună și o etapă stricată pare corectă. O celulă de mai sus care a
    # ridicat limita ar lăsa să treacă un asemenea răspuns; la fel, numerele aleatoare ale lui Inductor
    # (cazul real) se deosebesc de cele eager doar cu `fallback_random = False`.
    return verificare("Exercițiul 3", _cu_configuratia_implicita(
        corp, **{"torch._inductor.config.fallback_random": False}), limita_s=LIMITA_VERIFICARE_3_S)


# ---------------------------------------------------------------------------------------------
# Exercițiul 4 (verificarea)
# ---------------------------------------------------------------------------------------------

LIMITA_APEL_4_S = 120.0
LIMITA_VERIFICARE_4_CPU_S = 300.0
LIMITA_VERIFICARE_4_GPU_S = 480.0
#: Toleranțele față de eager: compilat, Inductor poate aduna altfel în virgulă mobilă, iar micile
#: diferențe se propagă de la un pas la altul.
_TOLERANTE_4 = {"rtol": 1e-4, "atol": 1e-5}


#: Câte operații de calcul eager (aten, în afara regiunilor compilate) pe pas are voie bucla ta:
#: pasul are vreo 14 operații; o buclă reparată rulează, în afara grafului, doar câteva operații pe
#: apel (`torch.zeros_like` la început, `torch.stack` la sfârșit), nu câte una pe pas. Vederile și
#: copierile (`_MUTARI_4`) nu se numără.
OPERATII_EAGER_PE_PAS_4 = 1.0

#: Operațiile aten care doar privesc sau mută date, fără să calculeze ceva din pas: o vedere a unui
#: tensor, o copiere într-un tampon prealocat (`pierderi[i] = pierdere` rulează `aten::select` și
#: `aten::copy_`), o conversie. Nu se numără printre operațiile eager ale pasului.
_MUTARI_4 = frozenset({
    "aten::select", "aten::slice", "aten::narrow", "aten::view", "aten::reshape", "aten::as_strided",
    "aten::unsqueeze", "aten::squeeze", "aten::expand", "aten::alias", "aten::detach", "aten::detach_",
    "aten::copy_", "aten::fill_", "aten::index_put_", "aten::index_copy_", "aten::select_scatter",
    "aten::to", "aten::_to_copy", "aten::lift_fresh", "aten::clone",
})
#: Operațiile care aduc o valoare dintr-un tensor în Python (`.item()`, `float()`, un `if` pe un
#: tensor): pe GPU, fiecare așteaptă să termine tot ce e lansat (o sincronizare).
_SINCRONIZARI_4 = frozenset({"aten::item", "aten::_local_scalar_dense", "aten::is_nonzero"})


def _operatii_pe_pas(afara: dict, afara_alti: dict, pasi: int, alti: int) -> dict[str, float]:
    """Câte operații eager de fiecare fel rulează pe pas: diferența dintre două apeluri cu alt număr
    de pași, împărțită la diferența pașilor (ce rulează o dată pe apel se anulează)."""
    return {
        nume: (afara_alti.get(nume, 0) - afara.get(nume, 0)) / (alti - pasi)
        for nume in set(afara) | set(afara_alti)
        if afara_alti.get(nume, 0) > afara.get(nume, 0)
    }


def _enumera_operatii(pe_pas: dict[str, float], cate: int = 5) -> str:
    """„`aten::mul` (3 pe pas), `aten::mm` (2 pe pas)…”, cele mai dese întâi."""
    ordonate = sorted(pe_pas.items(), key=lambda p: (-p[1], p[0]))
    text = ", ".join(f"`{nume}` ({format_numar(round(numar, 1))} pe pas)" for nume, numar in ordonate[:cate])
    return text + (" și altele" if len(ordonate) > cate else "")


def _verifica_operatiile_eager_4(afara: dict, afara_alti: dict, pasi: int, alti: int) -> None:
    """Respinge o buclă care, la fiecare pas, aduce o valoare în Python sau calculează eager, în
    afara regiunilor compilate; vederile și copierile într-un tampon sunt permise."""
    pe_pas = _operatii_pe_pas(afara, afara_alti, pasi, alti)
    sincronizari = {n: v for n, v in pe_pas.items() if n in _SINCRONIZARI_4 and v >= 0.5}
    if sincronizari:
        raise GresealaCursant(
            "Rezultatul e corect, dar la fiecare pas bucla ta aduce o valoare dintr-un tensor în Python, în afara "
            f"grafului: {_enumera_operatii(sincronizari)} (`.item()`, `float()` sau un `if` pe un tensor). Pe GPU, "
            "fiecare astfel de citire oprește ospătarul până termină GPU-ul tot ce i s-a dat (o sincronizare): "
            "exact costul pe care îl repari. Păstrează pierderile ca tensori (`torch.stack` la sfârșit sau un tampon "
            "prealocat, `pierderi[i] = pierdere`) și verifică-le, dacă vrei, o singură dată, după buclă."
        )
    calcul = {n: v for n, v in pe_pas.items() if n not in _MUTARI_4 and n not in _SINCRONIZARI_4}
    total = sum(calcul.values())
    if total > OPERATII_EAGER_PE_PAS_4:
        raise GresealaCursant(
            f"Rezultatul e corect și bucla are regiuni compilate, dar la fiecare pas rulează eager, în afara lor, "
            f"cam {cu_substantiv(round(total), 'operație de calcul', 'operații de calcul')}: {_enumera_operatii(calcul)}. "
            "Le-am numărat cu profilerul, ca diferență între două apeluri cu alt număr de pași (ce rulează o dată "
            "pe apel, ca `torch.zeros_like` sau `torch.stack`, nu contează); vederile și copierile într-un tampon "
            "(`pierderi[i] = pierdere`: `aten::select`, `aten::copy_`) nu intră la socoteală. Acestea sunt calcule "
            "ale pasului, rulate eager: fiecare e un kernel separat, cu costul lansării lui și un drum la cămară, "
            "tocmai ce compilarea ar fi unit într-un singur graf. Compilează pasul întreg (sau toată bucla), nu "
            "o bucată mică din el."
        )


def _in_masinaria_compilarii(eveniment) -> bool:
    """Adevărat pentru un eveniment al profilerului chemat dintr-o regiune compilată sau din
    căutarea în cache-ul lui Dynamo (evaluarea gărzilor): lucrul codului compilat, nu cel eager."""
    parinte = eveniment.cpu_parent
    while parinte is not None:
        if parinte.name.startswith(("Torch-Compiled Region", "TorchDynamo Cache Lookup")):
            return True
        parinte = parinte.cpu_parent
    return False


def _profil_bucla(functie, *argumente):
    """Rulează `functie(*argumente)` sub profiler și întoarce `(rezultat, regiuni, afara)`: câte
    regiuni „Torch-Compiled Region” au rulat și operațiile aten de nivel înalt (nu cele chemate de
    alte operații aten) care au rulat în afara oricărei regiuni compilate și a evaluării gărzilor,
    adică eager (un `Counter` pe nume)."""
    from collections import Counter

    from torch.profiler import ProfilerActivity, profile

    from ..masurare import are_stramos_aten

    with profile(activities=[ProfilerActivity.CPU]) as profiler:
        rezultat = functie(*argumente)
    evenimente = list(profiler.events())
    regiuni = [(e.time_range.start, e.time_range.end) for e in evenimente
               if e.name.startswith("Torch-Compiled Region")]

    afara = Counter(
        e.name for e in evenimente
        if e.name.startswith("aten::") and not are_stramos_aten(e) and not _in_masinaria_compilarii(e)
        and not any(inceput <= e.time_range.start and e.time_range.end <= sfarsit for inceput, sfarsit in regiuni)
    )
    return rezultat, len(regiuni), afara


def _regiuni_compilate(functie, *argumente):
    """Rulează `functie(*argumente)` sub profiler și întoarce (rezultatul, câte regiuni
    „Torch-Compiled Region” au rulat)."""
    rezultat, regiuni, _ = _profil_bucla(functie, *argumente)
    return rezultat, regiuni


def _verifica_pereche(obtinut, asteptat, context: str) -> None:
    if obtinut is None:
        raise GresealaCursant(f"Bucla ta a întors None ({context}): ai uitat `return w, pierderi`?")
    if not isinstance(obtinut, (tuple, list)) or len(obtinut) != 2:
        descriere = (f"un {type(obtinut).__name__} cu {cu_substantiv(len(obtinut), 'element', 'elemente')}"
                     if isinstance(obtinut, (tuple, list)) else type(obtinut).__name__)
        raise GresealaCursant(
            f"Bucla ta trebuie să întoarcă perechea `(w, pierderi)`, ca `bucla_lenta`; a întors {descriere} ({context})."
        )
    pierderi = obtinut[1]
    pasi = asteptat[1].shape[0]
    if isinstance(pierderi, torch.Tensor) and pierderi.dim() == 1 and pierderi.shape[0] != pasi:
        raise GresealaCursant(
            f"Cu `pasi = {pasi}`, bucla ta a întors {cu_substantiv(pierderi.shape[0], 'pierdere', 'pierderi')}, "
            "nu câte una pe pas: face un număr fix de pași? Folosește argumentul `pasi` (`for _ in range(pasi)`), nu un "
            "număr scris de tine; verificarea te cheamă cu mai multe valori."
        )
    compara_tensori(obtinut[0], asteptat[0], f"greutățile finale, {context}", **_TOLERANTE_4)
    compara_tensori(pierderi, asteptat[1], f"pierderile, {context}", **_TOLERANTE_4)


def _e_recompilare_interzisa(text: str) -> bool:
    return "fail_on_recompile" in text or "RecompileError" in text or "recompil" in text.lower()


def _interzise_4():
    """Exemplul stricat și referința eager: chemate din bucla ta, ar face chiar bucla de reparat."""
    modul = _acest_modul()
    eager = ("Ai folosit `verificari.{}`, {}: bucla ta ar rula chiar codul de reparat. Scrie pasul tău, "
             "fără `.item()`, și compilează-l.")
    return [
        (modul, "bucla_eager", eager.format("bucla_eager", "referința eager a verificării")),
        (modul, "bucla_lenta", eager.format("bucla_lenta", "exemplul stricat")),
        (modul, "_pas_cu_intreruperi", eager.format("_pas_cu_intreruperi", "pasul exemplului stricat")),
        (modul, "_pas_compilat", eager.format("_pas_compilat", "pasul compilat al exemplului stricat")),
    ]


def _alti_pasi(rng, pasi: int) -> list[int]:
    """Două numere de pași diferite de `pasi`: unul mai mic, unul mai mare."""
    return [rng.randint(2, max(2, pasi - 2)), rng.randint(pasi + 3, pasi + max(4, pasi // 2))]


def exercitiul_4(bucla_reparata) -> Rezultat:
    """Verifică `bucla_reparata(w, x, tinta, pasi)`: pe date noi (aceleași forme), dă rezultatul lui
    `bucla_eager` (greutățile și pierderile); la primul apel (încălzirea) nu are nicio întrerupere a
    grafului; al doilea apel nu recompilează (rulează sub
    `torch.compiler.set_stance("fail_on_recompile")`) și chiar rulează cod compilat (regiuni
    „Torch-Compiled Region” în profiler); cu alte două numere de pași (aleatoare), dă tot rezultatul
    lui `bucla_eager` (o buclă de lungime fixă nu trece); grosul lucrului rulează în regiunile
    compilate: în afara lor, cel mult `OPERATII_EAGER_PE_PAS_4` operații aten de calcul pe pas (un pas
    eager trecut printr-o funcție compilată banală nu trece; vederile și copierile într-un tampon,
    ca `pierderi[i] = pierdere`, nu se numără) și nicio citire a unei valori în Python pe pas
    (`.item()`, `float()`, un `if` pe un tensor); configurația globală rămâne neatinsă, iar
    bucla nu cheamă exemplul stricat sau referința eager a verificării. Pe GPU, măsoară bucla ta
    față de `bucla_eager` cu `masurare.compara` (mediana, variantele intercalate) și cere o
    accelerare de cel puțin `ACCELERARE_MINIMA_4`; pe procesor spune că viteza se verifică pe GPU."""
    pe_gpu = _pe_gpu()

    def corp():
        if bucla_reparata is bucla_lenta:
            raise GresealaCursant("Ai dat chiar `bucla_lenta`, exemplul stricat: scrie funcția ta, `bucla_reparata`.")
        if not callable(bucla_reparata):
            raise GresealaCursant(f"Trebuia o funcție, dar am primit {type(bucla_reparata).__name__}.")
        rng = generator_aleator()
        w, x, tinta, pasi = intrari_bucla(semanta=rng.randrange(2**31))
        _, x2, tinta2, _ = intrari_bucla(semanta=rng.randrange(2**31))
        inainte = _configuratia()
        _goleste_dynamo()
        try:
            with _fara_scurtaturi(_interzise_4(), bucla_reparata):
                # 1. Încălzirea: rezultat corect, fără întreruperi, cu grafuri capturate.
                obtinut = _ruleaza(bucla_reparata, w.clone(), x, tinta, pasi,
                                   ce="bucla ta (primul apel, cu compilarea)", limita_s=LIMITA_APEL_4_S)
                _verifica_pereche(obtinut, bucla_eager(w, x, tinta, pasi), "primul apel")
                intreruperi = _intreruperi()
                grafuri = _contoare()["stats"]["unique_graphs"]
                if intreruperi:
                    motiv = intreruperi[0]
                    raise GresealaCursant(
                        f"Rezultatul e corect, dar graful se întrerupe în buclă ({categorie_intrerupere(motiv)}). "
                        "Fiecare întrerupere costă, la fiecare pas, încă un graf cu "
                        "gărzile lui, iar `.item()` adaugă și o sincronizare cu GPU-ul. Taie gradientul cu "
                        f"`torch.where` și păstrează pierderile ca tensori.{cu_originalul(motiv)}"
                    )
                if not grafuri:
                    raise GresealaCursant(
                        "Rezultatul e corect, dar bucla ta nu mai compilează nimic: Dynamo n-a capturat niciun graf. "
                        "Exercițiul cere bucla compilată (cu `torch.compile`), fără întreruperi."
                    )
                # 2. Al doilea apel, pe date noi: fără recompilări, cu cod compilat.
                try:
                    with torch.compiler.set_stance("fail_on_recompile"):
                        obtinut, regiuni, afara = _ruleaza(
                            _profil_bucla, bucla_reparata, w.clone(), x2, tinta2, pasi,
                            ce="bucla ta (al doilea apel)", limita_s=LIMITA_APEL_4_S)
                except GresealaCursant as greseala:
                    if _e_recompilare_interzisa(str(greseala)):
                        motive = _motive_recompilare()
                        detaliu = f" Garda căzută: {descrie_garda(motive[-1])}." if motive else ""
                        raise GresealaCursant(
                            "Bucla ta se recompilează la al doilea apel, pe date noi de aceeași formă." + detaliu +
                            " O recompilare în bucla de antrenare costă cât sute de pași: caută valoarea Python "
                            "care se schimbă de la un apel la altul (sau un `torch._dynamo.reset()` rămas în funcție)."
                        ) from None
                    raise
                _verifica_pereche(obtinut, bucla_eager(w, x2, tinta2, pasi), "al doilea apel, pe date noi")
                if regiuni == 0:
                    raise GresealaCursant(
                        "La al doilea apel nu a rulat nicio regiune compilată („Torch-Compiled Region” lipsește din "
                        "profiler): bucla ta a rulat în modul eager."
                    )
                if _intreruperi():
                    raise GresealaCursant("La al doilea apel, graful buclei tale s-a întrerupt.")
                # 3. Alte numere de pași: același rezultat; grosul lucrului, în regiunile compilate.
                for alti in _alti_pasi(rng, pasi):
                    context = f"cu `pasi = {alti}`"
                    obtinut = _ruleaza(bucla_reparata, w.clone(), x2, tinta2, alti,
                                       ce=f"bucla ta ({context})", limita_s=LIMITA_APEL_4_S)
                    _verifica_pereche(obtinut, bucla_eager(w, x2, tinta2, alti), context)
                _, _, afara_alti = _ruleaza(_profil_bucla, bucla_reparata, w.clone(), x2, tinta2, alti,
                                            ce=f"bucla ta ({context}, al doilea apel)", limita_s=LIMITA_APEL_4_S)
                _verifica_operatiile_eager_4(afara, afara_alti, pasi, alti)
                # 4. Pe GPU: viteza.
                mesaj_viteza = (
                    " Viteza se verifică doar pe GPU: pe un procesor nu există lansări asincrone de kernel-uri și nici "
                    "sincronizări cu GPU-ul, deci nu se vede costul întreruperilor. Pe un H200, bucla ta trebuie să fie "
                    f"de cel puțin {cu_unitate(ACCELERARE_MINIMA_4, '×')} mai rapidă decât eager."
                )
            if pe_gpu:  # în afara pazei de mai sus: referința eager se măsoară fără niciun înveliș
                mesaj_viteza = _masoara_4(bucla_reparata, w, x, tinta, pasi)
        finally:
            schimbate = _schimbari_configuratie(inainte)
            _restaureaza_configuratia(inainte)
            _goleste_dynamo()
        if schimbate:
            raise GresealaCursant(_mesaj_configuratie(schimbate))
        return (
            "Rezultatul e cel al buclei eager, pentru oricâți pași, fără întreruperi ale grafului și fără "
            "recompilări de la un apel la altul, iar grosul fiecărui pas rulează compilat."
            f"{mesaj_viteza}"
        )

    return verificare("Exercițiul 4", _cu_configuratia_implicita(corp), limita_s=LIMITA_VERIFICARE_4_GPU_S if pe_gpu else LIMITA_VERIFICARE_4_CPU_S)


def _masoara_4(bucla_reparata, w, x, tinta, pasi) -> str:
    """Pe GPU: bucla cursantului față de `bucla_eager`, cu `masurare.compara`."""
    from ..masurare import RecompilareInMasurare, compara

    try:
        with _fara_jurnale_torch(), limita_timp(LIMITA_APEL_4_S * 2, "măsurarea buclei tale"):
            comparatie = compara({"eager": bucla_eager, "reparată": bucla_reparata}, w, x, tinta, pasi,
                                 runde=5, timp_minim_s=1.0)
    except RecompilareInMasurare as eroare:
        raise GresealaCursant(str(eroare)) from None
    except GresealaCursant:
        raise
    except Exception as eroare:
        raise GresealaCursant(_explica_eroare_compilata(eroare)) from None
    eager_s = comparatie.masuratori["eager"].mediana_s
    reparata_s = comparatie.masuratori["reparată"].mediana_s
    accelerare = eager_s / reparata_s
    if accelerare < ACCELERARE_MINIMA_4:
        raise GresealaCursant(
            f"Bucla ta e corectă și fără întreruperi, dar abia de {cu_unitate(accelerare, '×')} mai rapidă decât "
            f"eager (mediana: {format_timp(reparata_s)} față de {format_timp(eager_s)} pentru "
            f"{cu_substantiv(pasi, 'pas', 'pași')}); trebuia cel puțin {cu_unitate(ACCELERARE_MINIMA_4, '×')}. "
            "Scapă de toate sincronizările din buclă (niciun `.item()`, nicio listă de numere Python)."
        )
    return (
        f" Pe GPU, mediana: {format_timp(reparata_s)} față de {format_timp(eager_s)} eager, adică "
        f"{cu_unitate(accelerare, '×')}."
    )
