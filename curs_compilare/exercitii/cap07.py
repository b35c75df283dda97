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
from ..inspectie import NumaratorCompilari, categorie_intrerupere, motiv_scurt
from .baza import fara_jurnale_torch as _fara_jurnale_torch
from .baza import goleste_dynamo as _goleste_dynamo
from .baza import (
    NESCRIS,
    GresealaCursant,
    Rezultat,
    apeleaza,
    compara_tensori,
    explica_exceptie,
    generator_aleator,
    limita_timp,
    linia_cursantului,
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


def _motive_recompilare() -> list[str]:
    import re

    esecuri = getattr(torch._dynamo.utils, "guard_failures", None) or {}
    return [re.sub(r"^\d+/\d+: ", "", str(m)) for motive in esecuri.values() for m in motive]


def _configuratia() -> dict:
    """Configurația lui Dynamo și a lui Inductor (ca să se vadă dacă ai schimbat-o global)."""
    import torch._inductor.config as config_inductor

    return {
        "torch._dynamo.config": torch._dynamo.config.get_config_copy(),
        "torch._inductor.config": config_inductor.get_config_copy(),
    }


def _schimbari_configuratie(inainte: dict) -> list[str]:
    """Opțiunile schimbate față de `inainte` („torch._dynamo.config.specialize_float”)."""
    acum = _configuratia()
    schimbate = []
    for modul, valori in inainte.items():
        for cheie, valoare in valori.items():
            try:
                diferita = acum[modul].get(cheie, valoare) != valoare
            except Exception:  # valori care nu se pot compara
                diferita = False
            if diferita:
                schimbate.append(f"{modul}.{cheie}")
    return schimbate


def _restaureaza_configuratia(inainte: dict) -> None:
    import torch._inductor.config as config_inductor

    for modul, valori in ((torch._dynamo.config, inainte["torch._dynamo.config"]),
                          (config_inductor, inainte["torch._inductor.config"])):
        for cheie, valoare in valori.items():
            with contextlib.suppress(Exception), warnings.catch_warnings():
                warnings.simplefilter("ignore")
                if getattr(modul, cheie) != valoare:
                    setattr(modul, cheie, valoare)


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
            f"{categorie_intrerupere(str(eroare))}. Mesajul lui: „{motiv_scurt(str(eroare))}”."
        )
    if exc is not None and isinstance(eroare, getattr(exc, "BackendCompilerFailed", ())):
        interioara = getattr(eroare, "inner_exception", None) or eroare.__cause__ or eroare
        return explica_exceptie(interioara, cine="Compilarea codului tău")
    return explica_exceptie(eroare)


def _ruleaza(functie, *argumente, ce: str, limita_s: float | None = None, **numite):
    """Apelează (direct sau printr-o funcție compilată) codul cursantului, cu limită de timp și
    fără jurnalele PyTorch pe ecran; o excepție devine `GresealaCursant`."""
    gradient = torch.is_grad_enabled()
    try:
        with _fara_jurnale_torch(), limita_timp(limita_s if limita_s is not None else LIMITA_APEL_S, ce):
            return functie(*argumente, **numite)
    except GresealaCursant:
        raise
    except Exception as eroare:
        raise GresealaCursant(_explica_eroare_compilata(eroare)) from None
    finally:
        torch.set_grad_enabled(gradient)


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
                f"Graful filtrului tău se întrerupe ({categorie_intrerupere(motiv)}; Dynamo: „{motiv_scurt(motiv)}”). "
                "Dacă citești pragul cu `.item()`, ieși din lumea tensorilor la fiecare apel: folosește "
                "tensorul pragului direct în operații (`y.abs() > self.prag`)."
            )
        if numarator.compilari > 1:
            garda = next((m for m in motive if "prag" in m or "==" in m), motive[0] if motive else "")
            total = cu_substantiv(numarator.compilari, "compilare", "compilări")
            detaliu = f" Garda căzută: „{motiv_scurt(garda, 200)}”." if garda else ""
            sfat = (
                " Pragul e încă un număr Python (float): Dynamo îl face dinamic abia după o primă "
                "recompilare (și îl specializează din nou dacă trece printr-o funcție din `math`). Ține "
                "pragul într-un tensor, un buffer al modulului (`self.register_buffer(\"prag\", torch.tensor(0.5))`), "
                "și schimbă-i valoarea în `seteaza_prag` (`self.prag.fill_(valoare)`): pentru Dynamo, "
                "valoarea unui tensor nu e o gardă."
            )
            raise GresealaCursant(f"Au fost {total} pentru {format_numar(NUMAR_PRAGURI)} praguri.{detaliu}{sfat}")
        fara_graf = [i for i, (r, _) in enumerate(compilari_pe_apel) if r == 0]
        if fara_graf:
            raise GresealaCursant(
                f"La {cu_substantiv(len(fara_graf), 'apel', 'apeluri')} din {format_numar(NUMAR_PRAGURI)}, graful "
                "compilat n-a rulat deloc: filtrul a rulat în modul eager, pe lângă `torch.compile`."
            )
        return (
            f"O singură compilare pentru {format_numar(NUMAR_PRAGURI)} praguri diferite, fără întreruperi: "
            "pragul e acum o valoare dintr-un tensor, nu o constantă a grafului."
        )

    return verificare("Exercițiul 1", corp, limita_s=LIMITA_VERIFICARE_1_S)


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


@contextlib.contextmanager
def _lansari_kernel(fara_tensori_falsi: bool = False):
    """Numără lansările lui `kernel_exercitiul_2` (`kernel[grila](...)` ajunge la `run`). Cu
    `fara_tensori_falsi`, o lansare cu tensori „fake” (Dynamo urmărește operația fără date, iar
    interpretorul Triton ar cere memoria lor) nu se execută: doar se numără, separat."""
    from torch._subclasses.fake_tensor import FakeTensor

    numarate = {"reale": 0, "falsi": 0, "alte": 0}
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
            if any(isinstance(v, FakeTensor) for v in (*argumente, *numite.values())):
                numarate["falsi"] += 1
                if fara_tensori_falsi:
                    return None
            else:
                numarate["reale"] += 1
            return original(obiect, *argumente, **numite)

        return run

    for clasa, original in clase:
        clasa.run = invelis(original)
    try:
        yield numarate
    finally:
        for clasa, original in clase:
            clasa.run = original


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
    """Trei forme: un vector a cărui lungime nu e multiplu de niciun bloc obișnuit, o matrice și una
    mai mică decât un bloc."""
    mare = 1 << (20 if pe_gpu else 12)
    n = rng.randrange(mare // 2, mare) | 1
    return [(n,), (rng.randint(3, 40), rng.randint(3, 90) | 1), (rng.randint(1, 60),)]


def _verifica_operatia(operatie) -> str:
    if operatie is None:
        raise GresealaCursant("Ai dat None: dă verificării operația definită cu `@torch.library.triton_op`.")
    nume = _numele_operatiei(operatie)
    if nume is None:
        if callable(operatie):
            # Ciotul din notebook e o funcție simplă care ridică NotImplementedError: spune-o pe nume.
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
        nume = _verifica_operatia(operatie)
        rng = generator_aleator()
        generator = torch.Generator().manual_seed(rng.randrange(2**31))
        dispozitiv = _dispozitiv()
        limita = LIMITA_APEL_2_GPU_S if pe_gpu else LIMITA_APEL_2_CPU_S
        cazuri = []
        for forma in _forme_exercitiul_2(rng, pe_gpu):
            a = torch.randn(forma, generator=generator).to(dispozitiv)
            b = torch.randn(forma, generator=generator).mul(3).to(dispozitiv)
            cazuri.append((forma, a, b))

        # 1. Rulată normal: rezultat corect, intrări neatinse, kernel-ul chiar lansat.
        for forma, a, b in cazuri:
            text = " × ".join(format_numar(d) for d in forma)
            copii = (a.clone(), b.clone())
            with _lansari_kernel() as lansari:
                obtinut = _ruleaza(operatie, a, b, ce=f"operația ta (pe forma {text})", limita_s=limita)
            if not (torch.equal(a, copii[0]) and torch.equal(b, copii[1])):
                raise GresealaCursant(
                    f"Operația ta a modificat o intrare (pe forma {text}): scrie rezultatul într-un tensor nou, "
                    "`iesire = torch.empty_like(a)`, nu peste `a` sau `b`."
                )
            asteptat = referinta_exercitiul_2(a, b)
            try:
                compara_tensori(obtinut, asteptat, f"pe forma {text}", rtol=1e-5, atol=1e-6)
            except GresealaCursant as greseala:
                raise GresealaCursant(str(greseala) + _sfat_coada(obtinut, asteptat)) from None
            if lansari["reale"] == 0:
                alt = " (a lansat alt kernel)" if lansari["alte"] else ""
                raise GresealaCursant(
                    f"Rezultatul e corect, dar `kernel_exercitiul_2` nu s-a lansat deloc{alt}: operația calculează "
                    "altfel. Exercițiul cere chiar kernel-ul dat, lansat prin `wrap_triton(kernel_exercitiul_2)[grila](…)`."
                )

        # 2. Compilată cu fullgraph=True: fără întrerupere, un singur nod, același rezultat.
        _goleste_dynamo()
        forma, a, b = cazuri[0]
        text = " × ".join(format_numar(d) for d in forma)

        def cu_operatia(a, b):
            return operatie(a, b) * 2.0

        try:
            if pe_gpu:
                from torch._inductor.utils import run_and_get_code

                compilata = torch.compile(cu_operatia, fullgraph=True, backend="inductor")
                with _lansari_kernel():
                    obtinut, coduri = _ruleaza(run_and_get_code, compilata, a, b,
                                               ce="operația ta compilată cu Inductor", limita_s=limita)
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
                    obtinut = _ruleaza(compilata, a, b, ce="operația ta compilată", limita_s=limita)
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
    `(w, viteza, pierdere)`, cu pierderea ca număr Python. Are două ieșiri din lumea tensorilor:
    `norma.item()` într-un `if` și `pierdere.item()`."""
    eroare = x @ w - tinta
    pierdere = (eroare * eroare).mean()
    gradient = x.T @ eroare * (2.0 / x.shape[0])
    norma = torch.linalg.vector_norm(gradient)
    if norma.item() > PRAG_GRADIENT:  # întreruperea 1 (și o sincronizare cu GPU-ul)
        gradient = gradient * (PRAG_GRADIENT / norma)
    viteza = INERTIE * viteza + gradient
    w = w - RATA_INVATARE * viteza
    return w, viteza, pierdere.item()  # întreruperea 2 (și încă o sincronizare)


_pas_compilat = torch.compile(_pas_cu_intreruperi)


def bucla_lenta(w: torch.Tensor, x: torch.Tensor, tinta: torch.Tensor, pasi: int):
    """Exemplul stricat al exercițiului 4: `pasi` pași de optimizare mici, fiecare compilat cu
    `torch.compile`, și totuși mai lenți decât în modul eager pe un GPU (sau cel mult la egalitate).

    Întoarce `(w_final, pierderi)`: greutățile după ultimul pas și un tensor cu pierderea de la
    fiecare pas (`pasi` valori, pe dispozitivul și în tipul lui `w`).

    De ce e lentă: pasul compilat (`_pas_cu_intreruperi`) citește două valori cu `.item()`: norma
    gradientului, ca să decidă în Python dacă îl taie, și pierderea, ca s-o pună într-o listă Python.
    Fiecare `.item()` întrerupe graful (Dynamo împarte pasul în bucăți, fiecare cu gărzile ei)
    și oprește ospătarul până termină GPU-ul (o sincronizare): lansările nu se mai pot suprapune
    cu calculul. După al doilea `.item()` nu mai rămâne niciun calcul pe tensori, deci nici graf:
    în urma profiler-ului vezi, la fiecare pas, două regiuni „Torch-Compiled Region” despărțite
    de Python eager și de așteptări. Pe pași atât de mici, costul fix al celor două grafuri și
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


@contextlib.contextmanager
def _fara_compara_etape():
    """Cât rulează codul cursantului, `diagnoza.compara_etape` (răspunsul gata făcut) e înlocuită cu o
    funcție care notează folosirea ei; lista întoarsă nu e goală dacă a fost chemată."""
    from .. import diagnoza

    originala = diagnoza.compara_etape
    folosita: list[bool] = []

    def interzisa(*argumente, **numite):
        folosita.append(True)
        raise GresealaCursant(_MESAJ_SCURTATURA_3)

    diagnoza.compara_etape = interzisa
    try:
        yield folosita
    finally:
        diagnoza.compara_etape = originala
    if folosita:
        raise GresealaCursant(_MESAJ_SCURTATURA_3)


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
    exactă, toleranțele fixe de float32 pe date float64, lista de etape fixă, Dynamo negolit."""

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
                with _urmareste_torch_compile(), _fara_compara_etape():
                    raspuns = _ruleaza(etapa_care_schimba, _functie_sintetica, intrari, etape=etape,
                                       ce=f"funcția ta (pe cazul „{descriere}”)", limita_s=LIMITA_APEL_3_S)
                if raspuns is not None and not isinstance(raspuns, str):
                    raise GresealaCursant(
                        f"În cazul „{descriere}” ai întors {type(raspuns).__name__}; trebuia numele etapei (un "
                        "text din `etape`) sau None."
                    )
                if raspuns != asteptat:
                    raise GresealaCursant(_diagnostic_3(descriere, etape, asteptat, raspuns, separa))
            # Cazul real: aleatorul lui Inductor, pe dispozitivul cursului. Răspunsul îl află
            # verificarea, rulând ea etapele (pe torch 2.11 și 2.14, pe procesor și pe GPU: „inductor”).
            x = torch.randn(rng.randint(64, 512), generator=generator).to(_dispozitiv())
            asteptat = _prima_etapa_diferita(_functie_aleatoare, (x,), ETAPE)
            with _fara_compara_etape():
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

    return verificare("Exercițiul 3", corp, limita_s=LIMITA_VERIFICARE_3_S)


# ---------------------------------------------------------------------------------------------
# Exercițiul 4 (verificarea)
# ---------------------------------------------------------------------------------------------

LIMITA_APEL_4_S = 120.0
LIMITA_VERIFICARE_4_CPU_S = 300.0
LIMITA_VERIFICARE_4_GPU_S = 480.0
#: Toleranțele față de eager: compilat, Inductor poate aduna altfel în virgulă mobilă, iar micile
#: diferențe se propagă de la un pas la altul.
_TOLERANTE_4 = {"rtol": 1e-4, "atol": 1e-5}


def _regiuni_compilate(functie, *argumente):
    """Rulează `functie(*argumente)` sub profiler și întoarce (rezultatul, câte regiuni
    „Torch-Compiled Region” au rulat)."""
    from torch.profiler import ProfilerActivity, profile

    with profile(activities=[ProfilerActivity.CPU]) as profiler:
        rezultat = functie(*argumente)
    regiuni = sum(1 for e in profiler.events() if e.name.startswith("Torch-Compiled Region"))
    return rezultat, regiuni


def _verifica_pereche(obtinut, asteptat, context: str) -> None:
    if obtinut is None:
        raise GresealaCursant(f"Bucla ta a întors None ({context}): ai uitat `return w, pierderi`?")
    if not isinstance(obtinut, (tuple, list)) or len(obtinut) != 2:
        descriere = (f"un {type(obtinut).__name__} cu {format_numar(len(obtinut))} elemente"
                     if isinstance(obtinut, (tuple, list)) else type(obtinut).__name__)
        raise GresealaCursant(
            f"Bucla ta trebuie să întoarcă perechea `(w, pierderi)`, ca `bucla_lenta`; a întors {descriere} ({context})."
        )
    compara_tensori(obtinut[0], asteptat[0], f"greutățile finale, {context}", **_TOLERANTE_4)
    compara_tensori(obtinut[1], asteptat[1], f"pierderile, {context}", **_TOLERANTE_4)


def _e_recompilare_interzisa(text: str) -> bool:
    return "fail_on_recompile" in text or "RecompileError" in text or "recompil" in text.lower()


def exercitiul_4(bucla_reparata) -> Rezultat:
    """Verifică `bucla_reparata(w, x, tinta, pasi)`: pe două seturi de date noi (aceleași forme),
    dă rezultatul lui `bucla_eager` (greutățile și pierderile); la primul apel (încălzirea) nu are
    nicio întrerupere a grafului; al doilea apel nu recompilează (rulează sub
    `torch.compiler.set_stance("fail_on_recompile")`) și chiar rulează cod compilat (regiuni
    „Torch-Compiled Region” în profiler); configurația globală rămâne neatinsă. Pe GPU, măsoară
    bucla ta față de `bucla_eager` cu `masurare.compara` (mediana, variantele intercalate) și cere o
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
            # 1. Încălzirea: rezultat corect, fără întreruperi, cu grafuri capturate.
            obtinut = _ruleaza(bucla_reparata, w.clone(), x, tinta, pasi, ce="bucla ta (primul apel, cu compilarea)",
                               limita_s=LIMITA_APEL_4_S)
            _verifica_pereche(obtinut, bucla_eager(w, x, tinta, pasi), "primul apel")
            intreruperi = _intreruperi()
            grafuri = _contoare()["stats"]["unique_graphs"]
            if intreruperi:
                motiv = intreruperi[0]
                raise GresealaCursant(
                    f"Rezultatul e corect, dar graful se întrerupe în buclă ({categorie_intrerupere(motiv)}; "
                    f"Dynamo: „{motiv_scurt(motiv)}”). Fiecare întrerupere costă, la fiecare pas, încă un graf cu "
                    "gărzile lui, iar `.item()` adaugă și o sincronizare cu GPU-ul. Taie gradientul cu `torch.where` și "
                    "păstrează pierderile ca tensori."
                )
            if not grafuri:
                raise GresealaCursant(
                    "Rezultatul e corect, dar bucla ta nu mai compilează nimic: Dynamo n-a capturat niciun graf. "
                    "Exercițiul cere bucla compilată (cu `torch.compile`), fără întreruperi."
                )
            # 2. Al doilea apel, pe date noi: fără recompilări, cu cod compilat.
            try:
                with torch.compiler.set_stance("fail_on_recompile"):
                    obtinut, regiuni = _ruleaza(_regiuni_compilate, bucla_reparata, w.clone(), x2, tinta2, pasi,
                                                ce="bucla ta (al doilea apel)", limita_s=LIMITA_APEL_4_S)
            except GresealaCursant as greseala:
                if _e_recompilare_interzisa(str(greseala)):
                    motive = _motive_recompilare()
                    detaliu = f" Garda căzută: „{motiv_scurt(motive[-1], 200)}”." if motive else ""
                    raise GresealaCursant(
                        "Bucla ta se recompilează la al doilea apel, pe date noi de aceeași formă." + detaliu +
                        " O recompilare în bucla fierbinte costă cât sute de pași: caută valoarea Python care "
                        "se schimbă de la un apel la altul (sau un `torch._dynamo.reset()` rămas în funcție)."
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
            # 3. Pe GPU: viteza.
            mesaj_viteza = (
                " Viteza se verifică doar pe GPU: pe un procesor nu există lansări asincrone de kernel-uri și nici "
                "sincronizări cu GPU-ul, deci nu se vede costul întreruperilor. Pe un H200, bucla ta trebuie să fie de cel "
                f"puțin {cu_unitate(ACCELERARE_MINIMA_4, '×')} mai rapidă decât eager."
            )
            if pe_gpu:
                mesaj_viteza = _masoara_4(bucla_reparata, w, x, tinta, pasi)
        finally:
            schimbate = _schimbari_configuratie(inainte)
            _restaureaza_configuratia(inainte)
            _goleste_dynamo()
        if schimbate:
            raise GresealaCursant(_mesaj_configuratie(schimbate))
        return (
            "Rezultatul e cel al buclei eager, fără întreruperi ale grafului și fără recompilări de la un apel "
            f"la altul, iar codul compilat chiar rulează.{mesaj_viteza}"
        )

    return verificare("Exercițiul 4", corp, limita_s=LIMITA_VERIFICARE_4_GPU_S if pe_gpu else LIMITA_VERIFICARE_4_CPU_S)


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
