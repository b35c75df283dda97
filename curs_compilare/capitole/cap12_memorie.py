"""Uneltele capitolului 12 — memoria sub compilare: ce păstrează compilatorul pentru pasul înapoi și
cum o schimbi pe timp.

Celulele capitolului arată lecția (un `checkpoint`, o politică de checkpointing selectiv, bugetul de
memorie); de aici vine contabilitatea din jurul lor:

- `marimi_pentru_mediu`, `StivaBlocuri`, `lot_de_intrari` — modelul capitolului (blocurile
  `BlocTransformer` ale cursului, unul după altul) și dimensiunile lui, după mașină și profil;
- `inventar_eager` — activările salvate pentru pasul înapoi în modul eager, numărate exact, cu
  `torch.autograd.graph.saved_tensors_hooks` și cu atributele `_saved_*` ale nodurilor autograd;
- `cronologia_memoriei` — memoria tensorilor de-a lungul unui pas (evenimentele de alocare ale
  profilerului, pe procesor și pe GPU) și activările salvate, pe aceeași axă a timpului;
- `Compilator`, `Partitie` — backend-ul lui Inductor (`compile_fx`) cu grafurile păstrate: graful
  înainte și graful înapoi de după partiționare, ce salvează primul pentru al doilea, ce operații
  ale pasului înainte recalculează al doilea, vârful memoriei calculat din grafuri;
- `BancDeLucru` — strategiile (eager, compilat, bugete, checkpointing, checkpointing selectiv)
  compilate o dată, pe același model, și măsurate împreună: octeții salvați, vârful memoriei,
  timpul pasului;
- `arata_*` — tabelele, diagrama viteză–memorie și verdictele, scoase din cifre;
- `lot_maxim`, `cel_mai_rapid_care_incape`, `exploreaza_plafonul` — întrebarea practică: sub un
  plafon de memorie, cel mai mare lot al fiecărei strategii și cea mai rapidă pe exemplu;
- `instantaneu_memorie` — pe GPU, instantaneul memoriei (*memory snapshot*) pentru vizualizatorul
  PyTorch.

Ce e exact și ce e măsurat. Octeții salvați pentru pasul înapoi sunt exacți: în eager, cârligele
văd fiecare tensor salvat; sub compilare, aceleași cârlige văd tensorii salvați de funcția compilată
(`CompiledFunction` îi salvează cu `save_for_backward`), iar graful înainte de după partiționare spune
din ce operație vine fiecare. Vârful memoriei e măsurat: pe GPU cu `torch.cuda.max_memory_allocated`,
pe procesor din evenimentele de alocare ale profilerului (`profile_memory=True`), care văd fiecare
tensor alocat și eliberat în timpul pasului. Vârful calculat din grafuri (`Partitie.varf_din_grafuri`)
nu e o măsurătoare: presupune că fiecare valoare a grafului ajunge în memorie, ceea ce fuziunea lui
Inductor evită; arată însă în ce fază și din ce tensori se face vârful.
"""

from __future__ import annotations

import contextlib
import logging
import math
import operator
import weakref
from collections import Counter
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Callable, Iterable, Mapping, Sequence

import torch
import torch.nn.functional as F
from torch import nn

from .. import cifre
from ..cifre import cu_substantiv, cu_unitate, format_numar, format_octeti, format_procent, format_timp
from ..concluzii import concluzie_accelerare
from ..masurare import Comparatie, Masuratoare, compara, compara_pasi_ficsi, raport_din
from ..mediu import detecteaza_mediul, dimensiune, gpu_mare, profil_curent, sincronizeaza
from ..modele import BlocTransformer

__all__ = [
    "Marimi",
    "marimi_pentru_mediu",
    "StivaBlocuri",
    "lot_de_intrari",
    "pierdere",
    "OPERATII_MATMUL",
    "OPERATII_ATENTIE",
    "OPERATII_CALCUL_INTENS",
    "nume_operatie",
    "nume_buget",
    "bugete_capitol",
    "un_pas",
    "ACTIVARI",
    "BlocMLP",
    "Inventar",
    "inventar_eager",
    "arata_inventarul",
    "Cronologie",
    "cronologia_memoriei",
    "arata_cronologia",
    "Partitie",
    "Compilator",
    "compileaza",
    "Strategie",
    "Rezultat",
    "BancDeLucru",
    "arata_ce_salveaza_compilatorul",
    "arata_comparatia",
    "arata_bugetele",
    "arata_diagrama",
    "explica_varful",
    "ModelMemorie",
    "plafon_pentru_mediu",
    "alege_bugetul",
    "arata_alegerea_bugetului",
    "loturi_pentru_explorator",
    "lot_maxim",
    "cel_mai_rapid_care_incape",
    "arata_intrebarea_practica",
    "exploreaza_plafonul",
    "instantaneu_memorie",
    "BUGETE",
    "TINTA_MEMORIE",
    "TINTA_TIMP",
]

aten = torch.ops.aten

#: Bugetele de memorie ale capitolului, de la valoarea implicită (1,0) la 0,0: cel puțin șase puncte.
BUGETE = (1.0, 0.8, 0.6, 0.5, 0.4, 0.2, 0.0)
#: Ținta capitolului pe GPU: o strategie care taie vârful memoriei activărilor cu cel puțin 40% față
#: de compilarea cu bugetul 1,0 ...
TINTA_MEMORIE = 0.40
#: ... pentru cel mult 15% mai mult timp pe pas.
TINTA_TIMP = 0.15


def bugete_capitol() -> tuple[float, ...]:
    """Bugetele măsurate de capitol: toate șapte (`BUGETE`), în afara profilului rapid; sub teste, trei
    (1,0, 0,5 și 0,0), ca testele să nu compileze prea multe."""
    return dimensiune(gpu=BUGETE, cpu=BUGETE, rapid=(1.0, 0.5, 0.0))


def nume_buget(buget: float) -> str:
    """Numele strategiei unui buget: „buget 1,0”, „buget 0,5”, „buget 0,0”."""
    return f"buget {format_numar(float(buget), 1)}"


def _operatii(*nume: str) -> tuple:
    """Supraîncărcările `aten.<nume>.default` care există în versiunea instalată."""
    gasite = []
    for n in nume:
        pachet = getattr(aten, n, None)
        if pachet is not None and hasattr(pachet, "default"):
            gasite.append(pachet.default)
    return tuple(gasite)


#: Produsele de matrice, cum le vede o politică de checkpointing selectiv (după descompunerea lui
#: `nn.Linear`: `addmm` cu bias, `mm` fără, `bmm` pe loturi).
OPERATII_MATMUL = _operatii("mm", "addmm", "bmm")
#: Atenția fuzionată (SDPA), în toate variantele ei: pe procesor, FlashAttention, cea „eficientă”, cuDNN.
OPERATII_ATENTIE = _operatii(
    "_scaled_dot_product_flash_attention_for_cpu",
    "_scaled_dot_product_flash_attention",
    "_scaled_dot_product_efficient_attention",
    "_scaled_dot_product_cudnn_attention",
)
#: Operațiile „scumpe” pe care le păstrează o politică obișnuită: produsele de matrice și atenția.
OPERATII_CALCUL_INTENS = OPERATII_MATMUL + OPERATII_ATENTIE

_NUME_ATENTIE = {op.overloadpacket.__name__ for op in OPERATII_ATENTIE}


class _FaraAvertismentulContextFn(logging.Filter):
    """Unele versiuni (torch 2.11) avertizează, la fiecare compilare a unui `checkpoint` cu `context_fn`, să nu
    pui operații pe loc (`torch.relu_`) în regiune. Blocurile capitolului n-au niciuna; avertismentul, repetat
    în mijlocul tabelelor, doar le-ar ascunde. Celelalte mesaje ale jurnalului trec neschimbate."""

    def filter(self, inregistrare: logging.LogRecord) -> bool:
        return "context_fn is passed to torch.utils.checkpoint" not in str(inregistrare.getMessage())


logging.getLogger("torch._higher_order_ops.wrap").addFilter(_FaraAvertismentulContextFn())
_NUME_MATMUL = {"mm", "addmm", "bmm"}


def nume_operatie(tinta) -> str:
    """Numele scurt al unei operații dintr-un graf: „addmm”, „tanh”, „getitem”."""
    pachet = getattr(tinta, "overloadpacket", None)
    if pachet is not None:
        return pachet.__name__
    if tinta is operator.getitem:
        return "getitem"
    return getattr(tinta, "__name__", str(tinta))


#: Învelișurile partiționatorului pentru operațiile cu stare aleatoare (`nondeterministic_seeded`, cum e
#: atenția SDPA în unele versiuni): `run_and_save_rng_state(op, *argumente)` în pasul înainte și
#: `run_with_rng_state(stare, op, *argumente)` la recalcularea din pasul înapoi. Câte argumente stau
#: înaintea operației învelite.
_INVELISURI_ALEATOARE = {"run_and_save_rng_state": 0, "run_with_rng_state": 1}


def operatia_nodului(nod: torch.fx.Node) -> tuple:
    """Operația unui nod și argumentele ei, cu învelișurile stării aleatoare desfăcute: pentru
    `run_with_rng_state(stare, aten.sdpa, q, k, v)`, (aten.sdpa, (q, k, v))."""
    tinta, argumente = nod.target, tuple(nod.args)
    pozitie = _INVELISURI_ALEATOARE.get(getattr(tinta, "__name__", None))
    if pozitie is not None and len(argumente) > pozitie and callable(argumente[pozitie]):
        return argumente[pozitie], argumente[pozitie + 1:]
    return tinta, argumente


def nume_nod(nod: torch.fx.Node) -> str:
    """`nume_operatie` pentru operația nodului, cu învelișurile stării aleatoare desfăcute."""
    return nume_operatie(operatia_nodului(nod)[0])


def _e_vedere(nod: torch.fx.Node) -> bool:
    """Adevărat pentru o operație care întoarce o vedere (*view*) a intrării ei: aceeași memorie."""
    tinta = nod.target
    if not isinstance(tinta, torch._ops.OpOverload):
        return False
    vedere = getattr(tinta, "is_view", None)
    if vedere is not None:
        return bool(vedere)
    return any(r.alias_info is not None and not r.alias_info.is_write for r in tinta._schema.returns)


def _intreg(valoare) -> int:
    """Un număr întreg dintr-o dimensiune, concretă sau simbolică (forme dinamice: valoarea de la compilare)."""
    if isinstance(valoare, torch.SymInt):
        nod = valoare.node
        indiciu = getattr(nod, "hint", None)
        if indiciu is None:
            with contextlib.suppress(Exception):
                indiciu = nod.shape_env.size_hint(nod.expr)
        return int(indiciu) if indiciu is not None else 0
    return int(valoare)


def _octeti_val(valoare) -> int:
    """Octeții unui tensor (sau ai tensorilor unui tuplu) din `node.meta["val"]`."""
    if isinstance(valoare, torch.Tensor):
        return math.prod(_intreg(d) for d in valoare.shape) * valoare.element_size()
    if isinstance(valoare, (tuple, list)):
        return sum(_octeti_val(v) for v in valoare)
    return 0


# ---------------------------------------------------------------------------------------------
# Dimensiunile și modelul
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Marimi:
    """Dimensiunile capitolului: câte blocuri, lățimea și capetele lor, lungimea secvenței, lotul de
    lucru și precizia (None: float32, fără autocast)."""

    nr_blocuri: int
    dim_model: int
    nr_capete: int
    lungime: int
    lot: int
    precizie: torch.dtype | None = None

    def descriere(self) -> str:
        tip = str(self.precizie).removeprefix("torch.") if self.precizie is not None else "float32"
        return (f"{cu_substantiv(self.nr_blocuri, 'bloc', 'blocuri')} de lățime {format_numar(self.dim_model)} "
                f"({cu_substantiv(self.nr_capete, 'cap', 'capete')} de atenție), secvențe de "
                f"{cu_substantiv(self.lungime, 'jeton', 'jetoane')}, lotul {format_numar(self.lot)}, {tip}")


def marimi_pentru_mediu() -> Marimi:
    """Dimensiunile pentru mașina ta — singurul loc unde se aleg:

    - pe un GPU mare (cel puțin 40 GiB, ca H200): 4 blocuri de lățime 1 024, secvențe de 1 024 de
      jetoane, lotul 16, în bfloat16 (cu 12 blocuri, fiecare strategie se compila pe un H100 în 25–45 s,
      iar capitolul compilează peste zece; activările pe bloc, deci lecția, rămân aceleași);
    - pe un GPU mic (un T4, real sau simulat): același model, lotul 4, în float16 (T4-ul n-are bf16
      nativ); întrebarea e ce lot încape în cei 15 GB;
    - pe procesor: 3 blocuri de lățime 128, secvențe de 64, lotul 8, în float32 (fiecare strategie se compilează
      cu Inductor, în C++: mai multe blocuri ar lungi compilările, fără să schimbe lecția);
    - sub teste (profilul rapid): un bloc minuscul (cu un singur bloc, bugetul 0,0 și checkpointing-ul pe
      blocuri aproape coincid: profilul rapid verifică doar că totul rulează).
    """
    mediu = detecteaza_mediul()
    if mediu.are_gpu:
        precizie = torch.bfloat16 if mediu.bf16_nativ else torch.float16
        return Marimi(
            nr_blocuri=dimensiune(gpu=4, cpu=4, rapid=2), dim_model=dimensiune(gpu=1024, cpu=1024, rapid=64),
            nr_capete=dimensiune(gpu=16, cpu=16, rapid=2), lungime=dimensiune(gpu=1024, cpu=1024, rapid=64),
            lot=dimensiune(gpu=16 if gpu_mare() else 4, cpu=4, rapid=2), precizie=precizie,
        )
    return Marimi(
        nr_blocuri=dimensiune(gpu=3, cpu=3, rapid=1), dim_model=dimensiune(gpu=128, cpu=128, rapid=16),
        nr_capete=dimensiune(gpu=4, cpu=4, rapid=2), lungime=dimensiune(gpu=64, cpu=64, rapid=8),
        lot=dimensiune(gpu=8, cpu=8, rapid=2), precizie=None,
    )


class StivaBlocuri(nn.Module):
    """Blocurile `BlocTransformer` ale cursului, unul după altul: (lot × lungime × lățime) →
    aceeași formă. Fără înglobare și fără capul de ieșire: capul (logit-urile, lot × lungime ×
    vocabular) ar adăuga aceeași memorie la orice strategie, iar checkpointing-ul pe blocuri nu-l atinge.

    `invelis(bloc, x)`, dacă e dat, se cheamă în locul lui `bloc(x)` pentru fiecare bloc: acolo intră
    `checkpoint`. `cu_invelis` face o stivă nouă cu **aceleași** blocuri (aceiași parametri) și alt
    înveliș, ca toate strategiile capitolului să lucreze pe același model."""

    def __init__(self, marimi: Marimi | None = None, invelis: Callable | None = None, *, blocuri: nn.ModuleList | None = None):
        super().__init__()
        if blocuri is None:
            if marimi is None:
                raise TypeError("StivaBlocuri are nevoie de mărimi (sau de blocurile altei stive)")
            blocuri = nn.ModuleList(BlocTransformer(marimi.dim_model, marimi.nr_capete) for _ in range(marimi.nr_blocuri))
        self.blocuri = blocuri
        self.invelis = invelis

    def cu_invelis(self, invelis: Callable | None) -> "StivaBlocuri":
        """O stivă cu aceleași blocuri (aceiași parametri, aceleași gradiente) și învelișul `invelis`."""
        return StivaBlocuri(invelis=invelis, blocuri=self.blocuri)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        for bloc in self.blocuri:
            x = self.invelis(bloc, x) if self.invelis is not None else bloc(x)
        return x


def stiva_noua(marimi: Marimi, dispozitiv=None, seminta: int = 0) -> StivaBlocuri:
    """O stivă nouă, cu greutățile inițiale fixate de `seminta`, pe `dispozitiv`."""
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(seminta)
        stiva = StivaBlocuri(marimi)
    return stiva.to(dispozitiv or ("cuda" if torch.cuda.is_available() else "cpu"))


def lot_de_intrari(marimi: Marimi, lot: int | None = None, dispozitiv=None, seminta: int = 0,
                   dinamic: bool = True) -> tuple[torch.Tensor, torch.Tensor]:
    """Intrările unui pas (lot × lungime × lățime) și ținta lui, aleatoare. Cu `dinamic`, prima
    dimensiune (lotul) e marcată dinamică (`torch._dynamo.mark_dynamic`): o funcție compilată o dată
    merge apoi pe orice lot, fără să se recompileze — așa se măsoară memoria pe mai multe loturi."""
    lot = int(lot or marimi.lot)
    generator = torch.Generator().manual_seed(seminta)
    forma = (lot, marimi.lungime, marimi.dim_model)
    x = torch.randn(forma, generator=generator)
    tinta = torch.randn(forma, generator=generator)
    dispozitiv = dispozitiv or ("cuda" if torch.cuda.is_available() else "cpu")
    x, tinta = x.to(dispozitiv), tinta.to(dispozitiv)
    if dinamic and lot > 1:
        torch._dynamo.mark_dynamic(x, 0)
        torch._dynamo.mark_dynamic(tinta, 0)
    return x, tinta


def pierdere(model: Callable, x: torch.Tensor, tinta: torch.Tensor) -> torch.Tensor:
    """Eroarea pătratică medie dintre ieșirea stivei și țintă (în float32, și sub autocast)."""
    return F.mse_loss(model(x).float(), tinta)


def un_pas(functie: Callable, x: torch.Tensor, tinta: torch.Tensor, precizie: torch.dtype | None = None) -> torch.Tensor:
    """Pasul înainte, pierderea și pasul înapoi (fără optimizator), sub autocast dacă e dată `precizie`."""
    with _autocast(precizie, x.device.type):
        valoare = pierdere(functie, x, tinta)
    valoare.backward()
    return valoare.detach()


#: Activările blocului MLP din exercițiul 3, după nume.
ACTIVARI = {
    "relu": F.relu,
    "sigmoid": torch.sigmoid,
    "tanh": torch.tanh,
    "silu": F.silu,
    "gelu_tanh": lambda x: F.gelu(x, approximate="tanh"),
    "gelu": F.gelu,
}


class BlocMLP(nn.Module):
    """Blocul exercițiului 3: `x + jos(activare(sus(norma(x))))`, cu `sus` de la lățime la 4 × lățime,
    `jos` înapoi, `norma` un `LayerNorm` (sau nimic, cu `cu_norma=False`) și activarea aleasă după nume
    (`ACTIVARI`: relu, sigmoid, tanh, silu, gelu_tanh, gelu)."""

    def __init__(self, dim_model: int, activare: str, cu_norma: bool):
        super().__init__()
        if activare not in ACTIVARI:
            raise ValueError(f"activarea trebuie să fie una dintre {', '.join(ACTIVARI)}, nu {activare!r}")
        self.norma = nn.LayerNorm(dim_model) if cu_norma else nn.Identity()
        self.sus = nn.Linear(dim_model, 4 * dim_model)
        self.jos = nn.Linear(4 * dim_model, dim_model)
        self.activare = activare

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x + self.jos(ACTIVARI[self.activare](self.sus(self.norma(x))))


def _autocast(precizie: torch.dtype | None, dispozitiv: str):
    if precizie is None:
        return contextlib.nullcontext()
    return torch.autocast(dispozitiv, dtype=precizie)


def _dispozitiv_modelului(model: nn.Module) -> str:
    return next(model.parameters()).device.type


# ---------------------------------------------------------------------------------------------
# 1. Activările salvate, în eager
# ---------------------------------------------------------------------------------------------


def _cheie_memorie(t: torch.Tensor) -> tuple:
    """Memoria unui tensor: două vederi ale aceluiași tensor au aceeași cheie."""
    stocare = t.untyped_storage()
    return (t.device.type, t.device.index, stocare.data_ptr())


@dataclass
class Inventar:
    """Ce a salvat un pas pentru pasul înapoi: octeții activărilor (fără parametri și fără intrări,
    fiecare memorie numărată o dată), câți tensori, octeții pe fiecare nod autograd care le ține (o memorie
    salvată de două noduri e trecută la primul găsit) și, separat, octeții salvați care nu se numără
    (`octeti_exclusi`: parametrii, tamponii, intrările și ținta)."""

    octeti: int
    tensori: int
    pe_nod: Counter = field(default_factory=Counter)
    octeti_exclusi: int = 0

    def __str__(self) -> str:
        return f"{format_octeti(self.octeti)} în {cu_substantiv(self.tensori, 'tensor', 'tensori')}"


def _chei_excluse(model: nn.Module, *tensori: torch.Tensor) -> set:
    chei = {_cheie_memorie(p) for p in model.parameters()}
    chei |= {_cheie_memorie(b) for b in model.buffers()}
    chei |= {_cheie_memorie(t) for t in tensori}
    return chei


def _noduri_autograd(radacina) -> list:
    vazute, de_vizitat, ordine = set(), [radacina], []
    while de_vizitat:
        nod = de_vizitat.pop()
        if nod is None or id(nod) in vazute:
            continue
        vazute.add(id(nod))
        ordine.append(nod)
        de_vizitat.extend(urmator for urmator, _ in getattr(nod, "next_functions", ()))
    return ordine


def inventar_eager(model: nn.Module, x: torch.Tensor, tinta: torch.Tensor,
                   precizie: torch.dtype | None = None) -> Inventar:
    """Activările salvate de un pas eager (sau de orice funcție, compilată ori nu), numărate exact.

    Pasul înainte rulează sub `torch.autograd.graph.saved_tensors_hooks`: cârligul de împachetare
    vede fiecare tensor salvat pentru pasul înapoi. Parametrii, tamponii, intrările și ținta nu se
    numără (există oricum), iar două vederi ale aceleiași memorii se numără o dată. Apoi, pentru
    nume, se parcurge graful autograd: fiecare nod își ține tensorii salvați în atributele `_saved_*`
    (`AddmmBackward0._saved_mat1`, de exemplu). La sfârșit rulează pasul înapoi, ca memoria să se
    elibereze."""
    excluse = _chei_excluse(model, x, tinta)
    vazute: dict[tuple, int] = {}
    parametri = {}

    def impacheteaza(t):
        cheie = _cheie_memorie(t)
        if cheie in excluse:
            parametri[cheie] = t.untyped_storage().nbytes()
        else:
            vazute[cheie] = t.untyped_storage().nbytes()
        return t

    dispozitiv = x.device.type
    with torch.autograd.graph.saved_tensors_hooks(impacheteaza, lambda t: t), _autocast(precizie, dispozitiv):
        valoare = pierdere(model, x, tinta)
    pe_nod: Counter = Counter()
    numarate = set()
    for nod in _noduri_autograd(valoare.grad_fn):
        for atribut in dir(nod):
            if not atribut.startswith("_saved_"):
                continue
            with contextlib.suppress(Exception):
                t = getattr(nod, atribut)
                if isinstance(t, torch.Tensor):
                    cheie = _cheie_memorie(t)
                    if cheie in vazute and cheie not in numarate:
                        numarate.add(cheie)
                        pe_nod[nod.name()] += vazute[cheie]
    valoare.backward()
    return Inventar(octeti=sum(vazute.values()), tensori=len(vazute), pe_nod=pe_nod,
                    octeti_exclusi=sum(parametri.values()))


def arata_inventarul(inventar: Inventar, marimi: Marimi, maxim: int = 8) -> None:
    """Tabelul activărilor salvate de pasul eager, pe nodurile autograd care le țin."""
    print(f"Pasul eager a salvat pentru pasul înapoi {inventar} (activările, fără parametri și fără intrări).")
    jetoane = marimi.lot * marimi.lungime
    print(f"Pe jeton: {format_octeti(inventar.octeti / jetoane)}; pe bloc: {format_octeti(inventar.octeti / marimi.nr_blocuri)}.")
    if inventar.pe_nod:
        print("Cine le ține (nodul autograd, octeții lui, partea din total):")
        latime = max(len(n) for n in inventar.pe_nod)
        for nume, octeti in inventar.pe_nod.most_common(maxim):
            print(f"  {nume:<{latime}}  {format_octeti(octeti):>10}  {format_procent(octeti / max(inventar.octeti, 1))}")
        rest = sum(v for _, v in inventar.pe_nod.most_common()[maxim:])
        if rest:
            print(f"  (celelalte noduri: {format_octeti(rest)})")


# ---------------------------------------------------------------------------------------------
# Cronologia memoriei într-un pas
# ---------------------------------------------------------------------------------------------


@dataclass
class Cronologie:
    """Memoria de-a lungul unui pas: `timpi_ms` și `octeti` (toți tensorii alocați în timpul pasului,
    din profiler), `timpi_salvate_ms` și `octeti_salvate` (doar activările ținute pentru pasul înapoi),
    momentul în care începe pasul înapoi și vârful."""

    timpi_ms: list
    octeti: list
    timpi_salvate_ms: list
    octeti_salvate: list
    inceput_inapoi_ms: float
    sfarsit_ms: float
    varf_octeti: int
    varf_ms: float
    unde: str  # „procesor” sau „GPU”

    @property
    def faza_varfului(self) -> str:
        return "înainte" if self.varf_ms < self.inceput_inapoi_ms else "înapoi"


class _Pastrat:
    """Ce ține autograd în locul unui tensor salvat (cârligul îl întoarce): când autograd îl eliberează,
    după ce nodul lui a rulat în pasul înapoi, `weakref.finalize` notează momentul."""

    __slots__ = ("tensor", "__weakref__")

    def __init__(self, tensor):
        self.tensor = tensor


def _evenimente_memorie(profil, tip_dispozitiv: str) -> list[tuple[int, int]]:
    """(momentul în ns, octeți +/-) pentru fiecare alocare și eliberare văzută de profiler pe dispozitiv."""
    evenimente = []
    for e in profil.profiler.kineto_results.events():
        if e.name() != "[memory]":
            continue
        dispozitiv = str(getattr(e, "device_type", lambda: "")()).lower()
        if tip_dispozitiv == "cuda" and "cuda" not in dispozitiv:
            continue
        if tip_dispozitiv == "cpu" and "cuda" in dispozitiv:
            continue
        evenimente.append((e.start_ns(), e.nbytes()))
    return sorted(evenimente)


def _varf_din_evenimente(evenimente: Sequence[tuple[int, int]]) -> int:
    total = varf = 0
    for _, octeti in evenimente:
        total += octeti
        varf = max(varf, total)
    return varf


@contextlib.contextmanager
def _profiler_memorie(dispozitiv: str):
    """`torch.profiler` cu evenimentele de alocare (`profile_memory=True`), pe procesor și, dacă e cazul, pe GPU."""
    from torch.profiler import ProfilerActivity, profile

    activitati = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if dispozitiv == "cuda" else [])
    with profile(activities=activitati, profile_memory=True) as profil:
        yield profil


def cronologia_memoriei(functie: Callable, x: torch.Tensor, tinta: torch.Tensor, excluse: Iterable[torch.Tensor] = (),
                        precizie: torch.dtype | None = None) -> Cronologie:
    """Un pas (înainte, pierderea, înapoi) al lui `functie`, urmărit în două feluri, pe aceeași axă a
    timpului: toate alocările și eliberările de tensori (profilerul, `profile_memory=True`) și
    activările ținute pentru pasul înapoi (cârligele `saved_tensors_hooks`: o activare intră când e
    salvată și iese când autograd o eliberează, după ce nodul ei a rulat). `excluse`: tensorii care
    nu se numără ca activări (parametrii)."""
    dispozitiv = x.device.type
    chei_excluse = {_cheie_memorie(t) for t in excluse} | {_cheie_memorie(x), _cheie_memorie(tinta)}
    vii: dict[tuple, list] = {}
    momente: list[tuple[int, int]] = []  # (ns, octeții activărilor vii)
    import time

    def total_viu() -> int:
        return sum(octeti for octeti, _ in vii.values())

    def elibereaza(cheie):
        intrare = vii.get(cheie)
        if intrare is None:
            return
        intrare[1] -= 1
        if intrare[1] <= 0:
            del vii[cheie]
        momente.append((time.perf_counter_ns(), total_viu()))

    def impacheteaza(t):
        cheie = _cheie_memorie(t)
        if cheie in chei_excluse:
            return t
        if cheie in vii:
            vii[cheie][1] += 1
        else:
            vii[cheie] = [t.untyped_storage().nbytes(), 1]
        momente.append((time.perf_counter_ns(), total_viu()))
        pastrat = _Pastrat(t)
        weakref.finalize(pastrat, elibereaza, cheie)
        return pastrat

    def despacheteaza(pastrat):
        return pastrat.tensor if isinstance(pastrat, _Pastrat) else pastrat

    sincronizeaza()
    # ceasul profilerului și cel al cârligelor sunt diferite: le aliniez prin două repere comune
    with _profiler_memorie(dispozitiv) as profil:
        reper_ns = time.perf_counter_ns()
        with torch.profiler.record_function("curs_inceput"):
            pass
        with torch.autograd.graph.saved_tensors_hooks(impacheteaza, despacheteaza), _autocast(precizie, dispozitiv):
            valoare = pierdere(functie, x, tinta)
        sincronizeaza()
        inapoi_ns = time.perf_counter_ns()
        with torch.profiler.record_function("curs_inapoi"):
            valoare.backward()
            del valoare
        sincronizeaza()
        sfarsit_ns = time.perf_counter_ns()
    inceput_profiler = next((e.start_ns() for e in profil.profiler.kineto_results.events() if e.name() == "curs_inceput"), None)
    evenimente = _evenimente_memorie(profil, dispozitiv)
    # translatarea: reperul de pe ceasul perf_counter corespunde începutului marcajului „curs_inceput”
    deplasare = (inceput_profiler - reper_ns) if inceput_profiler is not None else (evenimente[0][0] - reper_ns if evenimente else 0)
    timpi, octeti, total = [], [], 0
    for moment, delta in evenimente:
        total += delta
        timpi.append((moment - deplasare - reper_ns) / 1e6)
        octeti.append(total)
    varf = max(octeti) if octeti else 0
    varf_ms = timpi[octeti.index(varf)] if octeti else 0.0
    timpi_salvate = [(m - reper_ns) / 1e6 for m, _ in momente]
    return Cronologie(
        timpi_ms=timpi, octeti=octeti, timpi_salvate_ms=timpi_salvate, octeti_salvate=[o for _, o in momente],
        inceput_inapoi_ms=(inapoi_ns - reper_ns) / 1e6, sfarsit_ms=(sfarsit_ns - reper_ns) / 1e6,
        varf_octeti=varf, varf_ms=varf_ms, unde="GPU" if dispozitiv == "cuda" else "procesor",
    )


def arata_cronologia(cronologie: Cronologie, titlu: str = "un pas eager") -> None:
    """Graficul memoriei de-a lungul pasului, cu pasul înainte și pasul înapoi marcate, și ce spun cifrele."""
    import matplotlib.pyplot as plt

    from ..grafice import arata

    figura, ax = plt.subplots(figsize=(11, 4))
    ax.axvspan(0, cronologie.inceput_inapoi_ms, color="#e8f0fe", label="pasul înainte")
    ax.axvspan(cronologie.inceput_inapoi_ms, cronologie.sfarsit_ms, color="#fdecea", label="pasul înapoi")
    if cronologie.timpi_ms:
        ax.step(cronologie.timpi_ms, [o / 2**20 for o in cronologie.octeti], where="post", color="black",
                label=f"toți tensorii alocați în pas (profilerul, {cronologie.unde})")
    if cronologie.timpi_salvate_ms:
        ax.step(cronologie.timpi_salvate_ms, [o / 2**20 for o in cronologie.octeti_salvate], where="post",
                color="tab:orange", label="activările ținute pentru pasul înapoi (cârligele)")
    ax.set_xlabel("timpul de la începutul pasului (ms)")
    ax.set_ylabel("MiB peste ce era alocat înainte")
    ax.set_title(f"Memoria într-un pas: {titlu}")
    ax.legend(loc="upper right", fontsize=8)
    figura.tight_layout()
    arata(figura)
    salvate_max = max(cronologie.octeti_salvate, default=0)
    print(f"Vârful memoriei tensorilor în pas: {format_octeti(cronologie.varf_octeti)}, în pasul {cronologie.faza_varfului}, "
          f"la {format_timp(cronologie.varf_ms / 1e3)} de la început (pasul înapoi începe la "
          f"{format_timp(cronologie.inceput_inapoi_ms / 1e3)}).")
    print(f"Activările ținute pentru pasul înapoi ajung la {format_octeti(salvate_max)}"
          + (f", adică {format_procent(salvate_max / cronologie.varf_octeti)} din vârf." if cronologie.varf_octeti else "."))
    if cronologie.timpi_salvate_ms:
        urcare = [o for t, o in zip(cronologie.timpi_salvate_ms, cronologie.octeti_salvate) if t < cronologie.inceput_inapoi_ms]
        la_capat = urcare[-1] if urcare else 0
        if la_capat >= 0.99 * salvate_max and salvate_max > 0:
            print("Activările cresc pe tot pasul înainte și sunt toate în memorie când începe pasul înapoi; apoi scad, "
                  "pe măsură ce nodurile care le folosesc rulează.")
        else:
            print("Activările nu sunt toate în memorie la începutul pasului înapoi: o parte se eliberează înainte.")
    if cronologie.faza_varfului == "înapoi":
        distanta = cronologie.varf_ms - cronologie.inceput_inapoi_ms
        durata = max(cronologie.sfarsit_ms - cronologie.inceput_inapoi_ms, 1e-9)
        if distanta <= 0.25 * durata:
            print(f"Vârful cade în primul sfert al pasului înapoi ({format_procent(distanta / durata)} din el): activările "
                  "salvate sunt încă toate acolo, iar peste ele se adaugă gradienții primelor noduri.")
        else:
            print(f"Vârful cade mai târziu în pasul înapoi ({format_procent(distanta / durata)} din el): acolo, tensorii "
                  "temporari și gradienții cântăresc mai mult decât activările rămase.")
    else:
        print("Vârful cade în pasul înainte: aici tensorii temporari ai unei operații cântăresc mai mult decât ce rămâne "
              "salvat la sfârșitul lui.")


# ---------------------------------------------------------------------------------------------
# 2. Ce salvează compilatorul: grafurile de după partiționare
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Salvat:
    """O valoare pe care graful înainte o dă grafului înapoi: numele nodului, operația care a produs
    memoria ei (după vederi), forma și octeții (0 pentru o vedere a unui parametru sau a unei intrări)."""

    nume: str
    operatie: str
    forma: tuple
    octeti: int
    din_intrari: bool


@dataclass
class Partitie:
    """Ce a hotărât partiționatorul lui AOTAutograd pentru o compilare: grafurile lui Dynamo, graful
    înainte și graful înapoi, cu bugetul de memorie folosit."""

    buget: float = 1.0
    grafuri_dynamo: list = field(default_factory=list)
    grafuri_inainte: list = field(default_factory=list)
    grafuri_inapoi: list = field(default_factory=list)
    genereaza_cod: bool = True

    @property
    def inainte(self) -> torch.fx.GraphModule | None:
        """Graful înainte, când compilarea a dat unul singur (fără întreruperi ale grafului)."""
        return self.grafuri_inainte[0] if len(self.grafuri_inainte) == 1 else None

    @property
    def inapoi(self) -> torch.fx.GraphModule | None:
        """Graful înapoi, când compilarea a dat unul singur."""
        return self.grafuri_inapoi[0] if len(self.grafuri_inapoi) == 1 else None

    @property
    def completa(self) -> bool:
        """Adevărat când există exact un graf înainte și graful lui înapoi (un singur graf Dynamo, un pas
        înapoi rulat): atunci analizele de mai jos au sens."""
        return self.inainte is not None and self.inapoi is not None

    def checkpointuri(self) -> int:
        """Câte regiuni `checkpoint` au ajuns în grafurile lui Dynamo (operația `tag_activation_checkpoint`)."""
        hop = getattr(torch.ops.higher_order, "tag_activation_checkpoint", None)
        return sum(1 for g in self.grafuri_dynamo for n in g.graph.nodes if n.op == "call_function" and n.target is hop)

    def _noduri_inainte(self) -> dict:
        return {n.name: n for n in self.inainte.graph.nodes} if self.inainte is not None else {}

    @staticmethod
    def _baza(nod: torch.fx.Node) -> torch.fx.Node:
        """Nodul care a alocat memoria unei valori (urcând prin vederi)."""
        while nod.op == "call_function" and _e_vedere(nod) and nod.args and isinstance(nod.args[0], torch.fx.Node):
            nod = nod.args[0]
        return nod

    def salvate(self) -> list[Salvat]:
        """Valorile salvate pentru pasul înapoi (intrările grafului înapoi, fără gradienții veniți din
        afară, `tangents_*`), cu memoria fiecăreia numărată o dată."""
        if not self.completa:
            return []
        inainte = self._noduri_inainte()
        rezultat, baze = [], set()
        for nod in self.inapoi.graph.nodes:
            if nod.op != "placeholder" or nod.name.startswith("tangents"):
                continue
            sursa = inainte.get(nod.name)
            if sursa is None:
                continue
            val = sursa.meta.get("val")
            if not isinstance(val, torch.Tensor):
                continue  # dimensiuni simbolice, stări ale generatorului aleator
            baza = self._baza(sursa)
            din_intrari = baza.op == "placeholder"
            octeti = 0 if (din_intrari or baza.name in baze) else _octeti_val(baza.meta.get("val"))
            if baza.op == "call_function" and baza.target is operator.getitem:
                octeti = 0 if (din_intrari or baza.name in baze) else _octeti_val(baza.meta.get("val"))
            baze.add(baza.name)
            operatie = nume_nod(baza) if baza.op == "call_function" else "intrare"
            if operatie == "getitem" and baza.args and isinstance(baza.args[0], torch.fx.Node):
                operatie = nume_nod(baza.args[0])
            rezultat.append(Salvat(nod.name, operatie, tuple(_intreg(d) for d in val.shape), octeti, din_intrari))
        return rezultat

    @property
    def octeti_salvati(self) -> int:
        """Octeții activărilor salvate (fără parametri și intrări, fiecare memorie o dată)."""
        return sum(s.octeti for s in self.salvate())

    def salvate_pe_operatie(self) -> Counter:
        rezultat: Counter = Counter()
        for s in self.salvate():
            if not s.din_intrari and s.octeti:
                rezultat[s.operatie] += s.octeti
        return rezultat

    def _recalculate_noduri(self) -> list[torch.fx.Node]:
        if not self.completa:
            return []
        inainte = self._noduri_inainte()
        noduri = []
        for nod in self.inapoi.graph.nodes:
            if nod.op != "call_function":
                continue
            eticheta = nod.meta.get("partitioner_tag")
            if getattr(nod.target, "__name__", None) == "run_with_rng_state":
                noduri.append(nod)  # o operație a pasului înainte, refăcută cu starea aleatoare salvată
            elif eticheta is not None:
                if eticheta != "is_backward":
                    noduri.append(nod)
            elif nod.name in inainte and inainte[nod.name].op == "call_function":
                noduri.append(nod)
        return noduri

    def recalculate(self, cu_vederi: bool = False) -> Counter:
        """Operațiile pasului înainte pe care graful înapoi le face din nou (recalculare,
        *rematerialization*), numărate pe nume. Vederile (`view`, `permute`…) nu costă nimic și lipsesc,
        dacă nu ceri `cu_vederi`; la fel `getitem` (alege o ieșire dintr-un tuplu)."""
        rezultat: Counter = Counter()
        for nod in self._recalculate_noduri():
            nume = nume_nod(nod)
            if nume == "getitem" or (not cu_vederi and _e_vedere(nod)):
                continue
            rezultat[nume] += 1
        return rezultat

    def flops_recalculate(self) -> float:
        """Operațiile în virgulă mobilă ale produselor de matrice și ale atenției recalculate (ce
        costă, de fapt, o recalculare: operațiile element cu element sunt aproape gratuite, topite în
        kernel-urile pasului înapoi). Același criteriu folosește partiționatorul pentru buget
        (`activation_memory_budget_runtime_estimator = "flops"`)."""
        total = 0.0
        for nod in self._recalculate_noduri():
            total += _flops_nod(nod)
        return total

    def varf_din_grafuri(self) -> "VarfGraf":
        """Vârful memoriei calculat din cele două grafuri, ca și cum fiecare valoare ar fi un tensor în
        memorie de la operația care o produce până la ultima ei folosire (fără fuziune): activările
        salvate rămân de la capătul pasului înainte până la ultima folosire în pasul înapoi. Spune în
        ce fază e vârful și ce tensori sunt atunci în memorie."""
        if not self.completa:
            return VarfGraf(0, "—", "", {})
        salvate = {s.nume: s for s in self.salvate()}
        varf_inainte, nod_inainte, vii_inainte = _simuleaza(self.inainte, {}, pastreaza_iesirile=True)
        initiale = {nume: s.octeti for nume, s in salvate.items() if s.octeti}
        total_salvat = sum(initiale.values())
        varf_inapoi, nod_inapoi, vii_inapoi = _simuleaza(self.inapoi, initiale, pastreaza_iesirile=True)
        if varf_inainte >= varf_inapoi:
            return VarfGraf(varf_inainte, "înainte", nod_inainte, vii_inainte, total_salvat)
        return VarfGraf(varf_inapoi, "înapoi", nod_inapoi, vii_inapoi, total_salvat)


@dataclass(frozen=True)
class VarfGraf:
    """Vârful memoriei calculat din grafuri: octeții, faza („înainte”/„înapoi”), nodul la care se
    atinge și ce e atunci în memorie (octeți pe operația care a produs fiecare tensor)."""

    octeti: int
    faza: str
    nod: str
    vii: dict
    octeti_salvati: int = 0


def _flops_nod(nod: torch.fx.Node) -> float:
    """Operațiile unui produs de matrice sau ale unei atenții, din formele din graf (0 pentru restul)."""
    tinta, argumente = operatia_nodului(nod)
    nume = nume_operatie(tinta)

    def forma(a):
        val = a.meta.get("val") if isinstance(a, torch.fx.Node) else None
        return [_intreg(d) for d in val.shape] if isinstance(val, torch.Tensor) else None

    try:
        if nume == "mm":
            (m, k), (_, n) = forma(argumente[0]), forma(argumente[1])
            return 2.0 * m * k * n
        if nume == "addmm":
            (m, k), (_, n) = forma(argumente[1]), forma(argumente[2])
            return 2.0 * m * k * n
        if nume == "bmm":
            (b, m, k), (_, _, n) = forma(argumente[0]), forma(argumente[1])
            return 2.0 * b * m * k * n
        if nume in _NUME_ATENTIE:
            q, k = forma(argumente[0]), forma(argumente[1])
            *lot, lq, d = q
            lk = k[-2]
            return 4.0 * math.prod(lot) * lq * lk * d
    except Exception:  # noqa: BLE001 - o formă neașteptată: nu se numără
        return 0.0
    return 0.0


def _simuleaza(graf: torch.fx.GraphModule, initiale: Mapping[str, int], pastreaza_iesirile: bool) -> tuple[int, str, dict]:
    """Memoria vie de-a lungul unui graf, nod cu nod: fiecare operație care nu e o vedere alocă
    ieșirea ei; o valoare se eliberează după ultima folosire (a ei sau a unei vederi a ei), dacă nu e o
    ieșire a grafului. `initiale`: valorile deja în memorie la început (activările salvate, pentru
    graful înapoi). Întoarce vârful, nodul la care apare și ce e viu atunci (octeți pe operație)."""
    noduri = list(graf.graph.nodes)
    baza: dict[str, str] = {}
    marime: dict[str, int] = {}
    operatie: dict[str, str] = {}
    for nod in noduri:
        if nod.op == "placeholder":
            baza[nod.name] = nod.name
            marime[nod.name] = int(initiale.get(nod.name, 0))
            operatie[nod.name] = "salvată" if nod.name in initiale else "intrare"
        elif nod.op == "call_function":
            sursa = nod.args[0] if nod.args and isinstance(nod.args[0], torch.fx.Node) else None
            if _e_vedere(nod) and sursa is not None:
                baza[nod.name] = baza.get(sursa.name, sursa.name)
                marime[nod.name] = 0
            else:
                baza[nod.name] = nod.name
                tuplu = isinstance(nod.meta.get("val"), (tuple, list))
                marime[nod.name] = 0 if tuplu else _octeti_val(nod.meta.get("val"))
                operatie[nod.name] = nume_nod(nod)
                if nod.target is operator.getitem and sursa is not None:
                    operatie[nod.name] = nume_nod(sursa)
    ultima: dict[str, int] = {}
    iesiri: set[str] = set()
    for i, nod in enumerate(noduri):
        for intrare in nod.all_input_nodes:
            b = baza.get(intrare.name, intrare.name)
            ultima[b] = i
        if nod.op == "output":
            for intrare in nod.all_input_nodes:
                iesiri.add(baza.get(intrare.name, intrare.name))
    vii: dict[str, int] = {n: m for n, m in marime.items() if m and operatie.get(n) == "salvată"}
    total = sum(vii.values())
    varf, nod_varf, vii_varf = total, "", dict(vii)
    for i, nod in enumerate(noduri):
        if nod.op == "call_function" and baza.get(nod.name) == nod.name and marime.get(nod.name):
            vii[nod.name] = marime[nod.name]
            total += marime[nod.name]
            if total > varf:
                varf, nod_varf, vii_varf = total, nod.name, dict(vii)
        for b in {baza.get(x.name, x.name) for x in nod.all_input_nodes}:
            if ultima.get(b) == i and b in vii and not (pastreaza_iesirile and b in iesiri):
                total -= vii.pop(b)
    pe_operatie: Counter = Counter()
    for nume, octeti in vii_varf.items():
        pe_operatie[operatie.get(nume, "?")] += octeti
    return varf, nod_varf, dict(pe_operatie)


def _limita_mare_de_recompilari():
    """Fiecare strategie a capitolului e o intrare nouă în cache-ul lui Dynamo pentru același cod
    (`StivaBlocuri.forward`); limita implicită, 8, s-ar atinge înainte de ultimul buget. Cât ține
    compilarea unei strategii, limita e mai mare (`inspectie.limita_recompilari`)."""
    from ..inspectie import limita_recompilari

    stiva = contextlib.ExitStack()
    stiva.enter_context(limita_recompilari(256))
    if hasattr(torch._dynamo.config, "accumulated_recompile_limit"):
        stiva.enter_context(torch._dynamo.config.patch(accumulated_recompile_limit=max(
            512, torch._dynamo.config.accumulated_recompile_limit)))
    return stiva


class Compilator:
    """Backend pentru `torch.compile(..., backend=Compilator(buget))`: exact drumul lui Inductor
    (`torch._inductor.compile_fx.compile_fx`: descompunerile, partiționarea cu
    `min_cut_rematerialization_partition`, generarea de cod), cu două lucruri în plus:

    - păstrează grafurile (`self.partitie`): cele ale lui Dynamo, graful înainte și graful înapoi de
      după partiționare (le primește funcția interioară de compilare, `inner_compile`);
    - pune bugetul de memorie (`torch._functorch.config.activation_memory_budget`) doar pe durata
      acestei compilări, ca mai multe bugete să trăiască în același proces (partiționatorul îl citește
      la compilare, nu la fiecare apel).

    Cu `genereaza_cod=False`, grafurile partiționate nu mai trec prin generarea de cod: rulează operație
    cu operație (ca backend-ul `aot_eager`, dar cu partiționarea lui Inductor). Ce se salvează și ce se
    recalculează e același; timpul și vârful memoriei sunt ale grafurilor nefuzionate. Așa rulează
    capitolul sub teste, unde compilarea C++ a fiecărei strategii ar costa prea mult.

    Cache-ul lui AOTAutograd e oprit pentru aceste compilări: la o potrivire în cache, grafurile nu mai
    trec prin `inner_compile`, deci n-ar avea ce păstra. Cache-ul lui Inductor (codul generat) rămâne."""

    def __init__(self, buget: float = 1.0, genereaza_cod: bool = True):
        if not 0.0 <= float(buget) <= 1.0:
            raise ValueError(f"bugetul de memorie e între 0 și 1, nu {buget}")
        self.buget = float(buget)
        self.genereaza_cod = bool(genereaza_cod)
        self.partitie = Partitie(buget=self.buget, genereaza_cod=self.genereaza_cod)

    def __call__(self, gm: torch.fx.GraphModule, exemple):
        from torch._inductor.compile_fx import compile_fx, compile_fx_inner

        self.partitie.grafuri_dynamo.append(gm)
        partitie = self.partitie
        genereaza = self.genereaza_cod

        def interior(graf, intrari, **optiuni):
            if optiuni.get("is_backward"):
                partitie.grafuri_inapoi.append(graf)
            else:
                partitie.grafuri_inainte.append(graf)
            if genereaza:
                return compile_fx_inner(graf, intrari, **optiuni)
            return _operatie_cu_operatie(graf)

        with torch._functorch.config.patch(enable_autograd_cache=False, activation_memory_budget=self.buget):
            return compile_fx(gm, exemple, inner_compile=interior)


def _operatie_cu_operatie(graf: torch.fx.GraphModule) -> Callable:
    """Graful, rulat așa cum e (operație cu operație), cu convenția „în cutie” a lui AOTAutograd: primește
    lista intrărilor și o golește, ca o intrare (o activare salvată) să se elibereze după ultima ei
    folosire, ca în codul generat de Inductor (așa face și backend-ul `aot_eager`)."""
    try:
        from torch.fx.graph import _BoxedCodeGen

        graf.graph.set_codegen(_BoxedCodeGen())
        graf.recompile()
    except Exception:  # noqa: BLE001 - o versiune fără generatorul „în cutie”: intrările trăiesc până la capăt
        from functorch.compile import make_boxed_func

        return make_boxed_func(graf.forward)

    def ruleaza(argumente):
        return graf.forward(argumente)

    ruleaza._boxed_call = True
    return ruleaza


def compileaza(model: Callable, buget: float = 1.0, genereaza_cod: bool | None = None):
    """`torch.compile(model, backend=Compilator(buget))`: întoarce funcția compilată și compilatorul
    (cu grafurile, în `.partitie`, după primul apel). `genereaza_cod=None`: da, în afara profilului rapid."""
    if genereaza_cod is None:
        genereaza_cod = profil_curent() != "rapid"
    compilator = Compilator(buget, genereaza_cod)
    return torch.compile(model, backend=compilator), compilator


# ---------------------------------------------------------------------------------------------
# Strategiile, compilate o dată și măsurate împreună
# ---------------------------------------------------------------------------------------------


@dataclass
class Strategie:
    """O strategie de memorie: un înveliș pentru fiecare bloc (None: blocul, direct; altfel, de
    exemplu, `checkpoint`) și un buget de memorie; `compilat=False`: eager."""

    nume: str
    invelis: Callable | None = None
    buget: float = 1.0
    compilat: bool = True
    functie: Callable | None = None
    compilator: Compilator | None = None
    secunde_compilare: float | None = None

    @property
    def partitie(self) -> Partitie | None:
        return self.compilator.partitie if self.compilator is not None else None


@dataclass
class Rezultat:
    """Ce s-a măsurat pentru o strategie la un lot: octeții salvați (exact, cu cârligele), vârful
    memoriei peste ce era alocat (gradienții, activările, tensorii temporari, pasul optimizatorului) și
    timpul pasului; pentru cele compilate, partiția."""

    nume: str
    lot: int
    buget: float | None
    octeti_salvati: int | None
    varf_octeti: int | None
    timp: Masuratoare | None = None
    partitie: Partitie | None = None
    secunde_compilare: float | None = None

    @property
    def recalculate(self) -> Counter:
        return self.partitie.recalculate() if self.partitie is not None else Counter()

    @property
    def flops_recalculate(self) -> float:
        return self.partitie.flops_recalculate() if self.partitie is not None else 0.0

    @property
    def timp_ms(self) -> float | None:
        return self.timp.mediana_s * 1e3 if self.timp is not None else None


def _runde_si_timp(runde: int | None, timp_minim_s: float | None) -> tuple[int, float]:
    """Rundele și timpul minim al unei comparații: 5 runde și 0,3 s; sub teste (profilul rapid), 3 runde
    și 0,05 s, cât să dea verdictul fără să lungească testele."""
    return (runde or dimensiune(gpu=5, cpu=5, rapid=3), timp_minim_s or dimensiune(gpu=0.3, cpu=0.3, rapid=0.05))


class BancDeLucru:
    """Strategiile capitolului pe **același** model (aceiași parametri, același optimizator AdamW):
    fiecare e compilată o singură dată (la primul pas, cu lotul dinamic, deci merge pe orice lot fără
    recompilare), apoi măsurată: octeții salvați, vârful memoriei, timpul pasului, toate strategiile
    cerute intercalat, cu `masurare.compara`."""

    def __init__(self, stiva: StivaBlocuri, marimi: Marimi, genereaza_cod: bool | None = None):
        self.stiva = stiva
        self.marimi = marimi
        self.dispozitiv = _dispozitiv_modelului(stiva)
        self.genereaza_cod = (profil_curent() != "rapid") if genereaza_cod is None else bool(genereaza_cod)
        from ..modele import optimizator_pentru

        self.optimizator = optimizator_pentru(stiva)
        self.strategii: dict[str, Strategie] = {}
        self._intrari: dict[int, tuple] = {}

    def descriere(self) -> str:
        """Cum compilează bancul: cu codul generat de Inductor sau doar cu partiționarea lui."""
        if self.genereaza_cod:
            return ("Compilarea: Inductor, întreg (partiționarea și codul generat), pe "
                    + ("GPU." if self.dispozitiv == "cuda" else "procesor (C++)."))
        return ("Compilarea: partiționarea lui Inductor, fără codul generat (profilul rapid): grafurile rulează operație cu "
                "operație. Ce se salvează și ce se reface e același ca sub Inductor; timpii și vârfurile sunt ale "
                "grafurilor nefuzionate.")

    # -- strategiile ------------------------------------------------------------------------
    def adauga(self, nume: str, invelis: Callable | None = None, buget: float = 1.0, compilat: bool = True) -> Strategie:
        """Adaugă (sau întoarce, dacă există deja) strategia `nume` și o compilează la primul pas."""
        if nume in self.strategii:
            return self.strategii[nume]
        strategie = Strategie(nume, invelis, float(buget), compilat)
        model = self.stiva.cu_invelis(invelis) if invelis is not None else self.stiva
        if compilat:
            strategie.compilator = Compilator(buget, self.genereaza_cod)
            strategie.functie = torch.compile(model, backend=strategie.compilator)
        else:
            strategie.functie = model
        self.strategii[nume] = strategie
        import time

        x, tinta = self.intrari(self.marimi.lot)
        with _limita_mare_de_recompilari():
            inceput = time.perf_counter()
            self._pas(strategie, x, tinta)
            sincronizeaza()
            strategie.secunde_compilare = time.perf_counter() - inceput if compilat else None
        return strategie

    def intrari(self, lot: int) -> tuple[torch.Tensor, torch.Tensor]:
        if lot not in self._intrari:
            self._intrari[lot] = lot_de_intrari(self.marimi, lot, self.dispozitiv, seminta=lot)
        return self._intrari[lot]

    def _calcul(self, strategie: Strategie, x, tinta):
        with _autocast(self.marimi.precizie, self.dispozitiv):
            return pierdere(strategie.functie, x, tinta)

    def _pas(self, strategie: Strategie, x, tinta):
        """Un pas întreg de antrenare: gradienții goliți, înainte, înapoi, AdamW."""
        self.optimizator.zero_grad(set_to_none=True)
        valoare = self._calcul(strategie, x, tinta)
        valoare.backward()
        self.optimizator.step()
        return valoare.detach()

    # -- măsurătorile -----------------------------------------------------------------------
    def octeti_salvati(self, nume: str, lot: int | None = None) -> int:
        """Octeții salvați pentru pasul înapoi de strategia `nume` la lotul `lot`, cu cârligele
        (`inventar_eager` merge și pe o funcție compilată: `CompiledFunction` își salvează tensorii tot
        prin `save_for_backward`)."""
        strategie = self.strategii[nume]
        x, tinta = self.intrari(lot or self.marimi.lot)
        self.optimizator.zero_grad(set_to_none=True)
        with _limita_mare_de_recompilari():
            inventar = inventar_eager_functie(strategie.functie, self.stiva, x, tinta, self.marimi.precizie)
        self.optimizator.zero_grad(set_to_none=True)
        return inventar.octeti

    def varf(self, nume: str, lot: int | None = None) -> int | None:
        """Vârful memoriei în timpul unui pas (înainte, înapoi, AdamW), peste ce era alocat înainte
        (parametrii, stările optimizatorului, intrările): pe GPU, `max_memory_allocated`; pe procesor,
        din evenimentele de alocare ale profilerului. Gradienții sunt goliți înainte, deci intră în vârf."""
        strategie = self.strategii[nume]
        x, tinta = self.intrari(lot or self.marimi.lot)
        self.optimizator.zero_grad(set_to_none=True)

        def pas():
            valoare = self._calcul(strategie, x, tinta)
            valoare.backward()
            self.optimizator.step()
            del valoare

        with _limita_mare_de_recompilari():
            return varf_pas(pas, self.dispozitiv)

    def masoara(self, nume: Sequence[str] | None = None, lot: int | None = None, cu_timp: bool = True,
                runde: int | None = None, timp_minim_s: float | None = None) -> list[Rezultat]:
        """Pentru fiecare strategie cerută (implicit, toate): octeții salvați, vârful memoriei și, cu
        `cu_timp`, timpul unui pas întreg de antrenare, toate strategiile măsurate intercalat (implicit 5
        runde; sub teste, 3 runde scurte)."""
        runde, timp_minim_s = _runde_si_timp(runde, timp_minim_s)
        nume = list(nume or self.strategii)
        lot = int(lot or self.marimi.lot)
        rezultate = {}
        for n in nume:
            s = self.strategii[n]
            try:
                salvat, varf = self.octeti_salvati(n, lot), self.varf(n, lot)
            except torch.OutOfMemoryError:  # pe GPU: lotul nu încape cu strategia asta
                self.optimizator.zero_grad(set_to_none=True)
                torch.cuda.empty_cache()
                salvat, varf = None, None
            rezultate[n] = Rezultat(n, lot, s.buget if s.compilat else None, salvat, varf, partitie=s.partitie,
                                    secunde_compilare=s.secunde_compilare)
        if cu_timp:
            x, tinta = self.intrari(lot)
            variante = {n: (lambda s=self.strategii[n]: self._pas(s, x, tinta)) for n in nume
                        if rezultate[n].varf_octeti is not None}
            with _limita_mare_de_recompilari():
                comparatie = compara(variante, runde=runde, timp_minim_s=timp_minim_s, pe_gpu=self.dispozitiv == "cuda")
            for n in variante:
                rezultate[n].timp = comparatie[n]
        return [rezultate[n] for n in nume]

    @property
    def octeti_ficsi(self) -> int:
        """Memoria care nu depinde de lot: ponderile și cele două stări ale lui AdamW (la fel de mari)."""
        return 3 * sum(p.numel() * p.element_size() for p in self.stiva.parameters())


def inventar_eager_functie(functie: Callable, model: nn.Module, x, tinta, precizie=None) -> Inventar:
    """`inventar_eager` pentru o funcție (eager sau compilată) care rulează parametrii lui `model`."""
    excluse = _chei_excluse(model, x, tinta)
    vazute: dict[tuple, int] = {}

    def impacheteaza(t):
        cheie = _cheie_memorie(t)
        if cheie not in excluse:
            vazute[cheie] = t.untyped_storage().nbytes()
        return t

    with torch.autograd.graph.saved_tensors_hooks(impacheteaza, lambda t: t), _autocast(precizie, x.device.type):
        valoare = pierdere(functie, x, tinta)
    valoare.backward()
    return Inventar(octeti=sum(vazute.values()), tensori=len(vazute))


def varf_pas(pas: Callable[[], object], dispozitiv: str) -> int | None:
    """Octeții ceruți în plus, la vârf, de `pas()`: pe GPU, `crestere_memorie_mib` din capitolul 06
    (`max_memory_allocated` după `reset_peak_memory_stats`); pe procesor, suma alocărilor și
    eliberărilor văzute de profiler, în ordinea lor, la maxim."""
    if dispozitiv == "cuda":
        from .cap06_modelul_intreg import crestere_memorie_mib

        mib = crestere_memorie_mib(pas)
        return int(mib * 2**20) if mib is not None else None
    with _profiler_memorie("cpu") as profil:
        pas()
    return _varf_din_evenimente(_evenimente_memorie(profil, "cpu"))


# ---------------------------------------------------------------------------------------------
# Tabelele și verdictele
# ---------------------------------------------------------------------------------------------


def _tabel(antet: Sequence[str], randuri: Sequence[Sequence[str]]) -> str:
    latimi = [max(len(str(r[i])) for r in [antet, *randuri]) for i in range(len(antet))]
    linii = ["  ".join(str(c).ljust(l) for c, l in zip(antet, latimi)).rstrip()]
    linii += ["  ".join(str(c).ljust(l) for c, l in zip(r, latimi)).rstrip() for r in randuri]
    return "\n".join(linii)


def _lista_operatii(operatii: Counter, maxim: int = 8) -> str:
    if not operatii:
        return "nimic"
    parti = [f"{n} ×{c}" if c > 1 else n for n, c in operatii.most_common(maxim)]
    rest = len(operatii) - maxim
    return ", ".join(parti) + (f" și încă {cu_substantiv(rest, 'operație', 'operații')}" if rest > 0 else "")


def _scumpe(operatii: Counter) -> Counter:
    return Counter({n: c for n, c in operatii.items() if n in _NUME_MATMUL or n in _NUME_ATENTIE})


def arata_ce_salveaza_compilatorul(inventar: Inventar, partitie: Partitie, octeti_compilat: int) -> None:
    """Secțiunea 2: ce salvează pasul eager, ce salvează graful compilat, ce recalculează el și de ce."""
    if not partitie.completa:
        print("Grafurile compilării lipsesc (n-a rulat încă un pas înapoi?).")
        return
    din_graf = partitie.octeti_salvati
    print(f"Eager:     {format_octeti(inventar.octeti)} salvați pentru pasul înapoi (cârligele).")
    print(f"Compilat:  {format_octeti(octeti_compilat)} (cârligele, pe funcția compilată); graful înainte dă grafului "
          f"înapoi {format_octeti(din_graf)} de activări.")
    in_afara = inventar.pe_nod.get("MseLossBackward0", 0)
    if octeti_compilat == din_graf:
        print("  Cele două numărători ale variantei compilate se potrivesc la octet: cârligele văd exact ce a ales graful.")
    elif octeti_compilat - din_graf == in_afara:
        print(f"  Diferența dintre ele, {format_octeti(in_afara)}, e exact ce salvează pierderea (`mse_loss` își ține "
              "intrarea, ieșirea stivei), calculată în afara grafului compilat: cârligele o văd, graful stivei nu. "
              "Restul se potrivește la octet.")
    else:
        print(f"  Cele două numărători diferă cu {format_octeti(abs(octeti_compilat - din_graf))}: în afară de pierdere "
              f"({format_octeti(in_afara)}), cârligele numără o memorie văzută prin mai multe vederi o singură dată, "
              "graful numără nodurile.")
    diferenta = inventar.octeti - octeti_compilat
    if inventar.octeti and abs(diferenta) <= 0.01 * inventar.octeti:
        print(f"Compilarea salvează practic cât eager-ul (diferență de {format_octeti(abs(diferenta))}).")
    elif diferenta > 0:
        print(f"Compilarea salvează cu {format_octeti(diferenta)} mai puțin ({format_procent(diferenta / inventar.octeti)}).")
    else:
        print(f"Compilarea salvează cu {format_octeti(-diferenta)} mai mult decât eager-ul.")
    print("Ce salvează graful compilat, pe operația care a produs fiecare tensor:")
    for operatie, octeti in partitie.salvate_pe_operatie().most_common():
        print(f"  {operatie:<44} {format_octeti(octeti):>10}")
    recalculate = partitie.recalculate()
    print(f"Ce recalculează graful înapoi din pasul înainte (fără vederi): {_lista_operatii(recalculate)}.")
    scumpe = _scumpe(recalculate)
    if scumpe:
        print(f"  Printre ele, operații scumpe: {_lista_operatii(scumpe)}.")
    else:
        print("  Niciun produs de matrice și nicio atenție: partiționatorul recalculează doar operații ieftine, "
              "element cu element.")
    salvate_ops = set(partitie.salvate_pe_operatie())
    reduceri = sorted(salvate_ops & {"var_mean", "sum", "mean", "amax", "logsumexp"})
    if reduceri:
        print(f"  Rezultatele reducerilor ({', '.join(reduceri)}) sunt salvate, nu recalculate: sunt mici, iar "
              "o reducere recalculată ar citi din nou tot tensorul.")


def _randuri_rezultate(rezultate: Sequence[Rezultat], referinta: Rezultat | None) -> list[list[str]]:
    randuri = []
    for r in rezultate:
        varf = format_octeti(r.varf_octeti) if r.varf_octeti is not None else "—"
        timp = format_timp(r.timp.mediana_s) if r.timp is not None else "—"
        fata = "—"
        if r is not referinta and referinta is not None and referinta.varf_octeti and r.varf_octeti is not None:
            fata = format_procent(r.varf_octeti / referinta.varf_octeti - 1)
            if not fata.startswith("-"):
                fata = "+" + fata
        randuri.append([r.nume, format_octeti(r.octeti_salvati) if r.octeti_salvati is not None else "—", varf, fata, timp,
                        _lista_operatii(_scumpe(r.recalculate), 4) if r.partitie is not None else "—"])
    return randuri


def _antet_rezultate(referinta: str | None) -> list[str]:
    return ["strategia", "salvat pentru înapoi", "vârful pasului", f"vârf față de „{referinta}”" if referinta else "vârf",
            "timpul pasului", "recalculează (scumpe)"]


def arata_comparatia(rezultate: Sequence[Rezultat], referinta: str = "compilat") -> None:
    """Tabelul câtorva strategii și verdictele lor față de `referinta`: memoria (salvată și vârful) și
    timpul, cu `concluzie_accelerare` (care spune când decide zgomotul)."""
    dupa_nume = {r.nume: r for r in rezultate}
    ref = dupa_nume.get(referinta)
    print(_tabel(_antet_rezultate(referinta if ref else None), _randuri_rezultate(rezultate, ref)))
    if ref is None:
        return
    for r in rezultate:
        if r is ref:
            continue
        _verdict_memorie(r, ref)
        if r.timp is not None and ref.timp is not None:
            raport = raport_din(ref.timp, r.timp)
            print("  " + concluzie_accelerare(raport, f"Pasul cu „{r.nume}”", f"cel cu „{ref.nume}”", feminin=False,
                                              ce_se_compara="variante", cauza=_cauza_timp(r)))


def _cauza_timp(r: Rezultat) -> str | None:
    scumpe = _scumpe(r.recalculate)
    if scumpe:
        return f"pasul înapoi reface {_lista_operatii(scumpe)} din pasul înainte"
    if r.partitie is not None and r.recalculate:
        return "pasul înapoi reface operații element cu element din pasul înainte"
    return None


def _verdict_memorie(r: Rezultat, ref: Rezultat) -> None:
    parti = []
    if ref.octeti_salvati and r.octeti_salvati is not None:
        parti.append(f"salvează {format_procent(r.octeti_salvati / ref.octeti_salvati)} din ce salvează „{ref.nume}”")
    if ref.varf_octeti and r.varf_octeti is not None:
        raport = r.varf_octeti / ref.varf_octeti
        if abs(raport - 1) < 0.01:
            parti.append("vârful pasului e practic același")
        elif raport < 1:
            parti.append(f"vârful pasului e cu {format_procent(1 - raport)} mai mic")
        else:
            parti.append(f"vârful pasului e cu {format_procent(raport - 1)} mai MARE")
    if parti:
        print(f"„{r.nume}”: " + "; ".join(parti) + ".")


def arata_bugetele(rezultate: Sequence[Rezultat], referinta: str = "buget 1,0") -> None:
    """Tabelul bugetelor: ce salvează, vârful, timpul, ce recalculează, și unde se rupe ordinea așteptată."""
    bugete = sorted((r for r in rezultate if r.buget is not None and r.nume.startswith("buget")),
                    key=lambda r: -r.buget)
    ref = next((r for r in bugete if r.nume == referinta), bugete[0] if bugete else None)
    print(_tabel(_antet_rezultate(ref.nume if ref else None), _randuri_rezultate(bugete, ref)))
    salvate = [r.octeti_salvati or 0 for r in bugete]
    if any(b > a for a, b in zip(salvate, salvate[1:])):
        urcari = [f"{format_numar(a.buget, 1)} → {format_numar(b.buget, 1)}" for a, b in zip(bugete, bugete[1:])
                  if (b.octeti_salvati or 0) > (a.octeti_salvati or 0)]
        print(f"Octeții salvați NU scad la fiecare buget mai mic: cresc la {', '.join(urcari)}.")
    else:
        print("Octeții salvați scad (sau rămân la fel) la fiecare buget mai mic: partiționatorul respectă bugetul.")
    varfuri = [(r.buget, r.varf_octeti) for r in bugete if r.varf_octeti is not None]
    urcari = [f"{format_numar(a[0], 1)} → {format_numar(b[0], 1)}" for a, b in zip(varfuri, varfuri[1:]) if b[1] > a[1] * 1.01]
    if urcari:
        print(f"Vârful memoriei NU urmează bugetul: crește de la un buget la unul mai mic la {', '.join(urcari)}.")
    else:
        print("Vârful memoriei scade (sau rămâne la fel) odată cu bugetul, pe mașina ta.")
    if bugete and ref is not None and ref.varf_octeti:
        zero = bugete[-1]
        if zero.varf_octeti is not None and zero.varf_octeti > ref.varf_octeti * 1.01:
            print(f"Bugetul {format_numar(zero.buget, 1)} are un vârf mai mare decât bugetul {format_numar(ref.buget, 1)} "
                  f"({format_octeti(zero.varf_octeti)} față de {format_octeti(ref.varf_octeti)}), deși salvează "
                  f"{format_procent(zero.octeti_salvati / max(ref.octeti_salvati, 1))} din ce salvează acela: "
                  "explicația e mai jos, după diagramă.")


def explica_varful(rezultate: Sequence[Rezultat], nume: Sequence[str]) -> None:
    """Pentru strategiile `nume`: vârful calculat din grafuri (faza, nodul, ce e atunci în memorie),
    lângă vârful măsurat. Explică de ce un buget mai mic poate avea un vârf mai mare."""
    dupa_nume = {r.nume: r for r in rezultate}
    for n in nume:
        r = dupa_nume.get(n)
        if r is None or r.partitie is None or not r.partitie.completa:
            continue
        v = r.partitie.varf_din_grafuri()
        masurat = f"; măsurat: {format_octeti(r.varf_octeti)}" if r.varf_octeti is not None else ""
        print(f"„{n}”: vârful din grafuri e {format_octeti(v.octeti)}, în pasul {v.faza}{masurat}.")
        print(f"   salvat la capătul pasului înainte: {format_octeti(v.octeti_salvati)}; recalculate în pasul înapoi: "
              f"{_lista_operatii(r.recalculate, 6)}.")
        if v.vii:
            total = sum(v.vii.values()) or 1
            parti = [f"{op} {format_octeti(o)} ({format_procent(o / total)})" for op, o in
                     sorted(v.vii.items(), key=lambda p: -p[1])[:5]]
            print("   în memorie la vârf, pe operația care a produs fiecare tensor: " + ", ".join(parti) + ".")


def arata_diagrama(rezultate: Sequence[Rezultat], titlu: str = "") -> None:
    """Diagrama viteză–memorie: timpul pasului față de memoria activărilor, cu toate strategiile.
    Stânga: octeții salvați pentru pasul înapoi (exacți); dreapta: vârful memoriei într-un pas (măsurat)."""
    import matplotlib.pyplot as plt

    from ..grafice import arata

    cu_timp = [r for r in rezultate if r.timp is not None]
    if not cu_timp:
        print("Nicio strategie n-are timpul măsurat.")
        return
    figura, axe = plt.subplots(1, 2, figsize=(13, 4.8), sharey=True)
    culori = {"eager": "gray"}
    for ax, cheie, eticheta in ((axe[0], "salvat", "memoria salvată pentru pasul înapoi (MiB, exactă)"),
                                (axe[1], "varf", "vârful memoriei într-un pas (MiB, măsurat)")):
        bugete = sorted((r for r in cu_timp if r.nume.startswith("buget")), key=lambda r: -r.buget)
        for r in cu_timp:
            x = (r.octeti_salvati if cheie == "salvat" else (r.varf_octeti or 0)) / 2**20
            y = r.timp.mediana_s * 1e3
            jos, sus = r.timp.cuantila20_s * 1e3, r.timp.cuantila80_s * 1e3
            if r.nume.startswith("buget"):
                stil = dict(marker="o", color="tab:blue")
            elif "selectiv" in r.nume or "SAC" in r.nume:
                stil = dict(marker="D", color="tab:green", markersize=9)
            elif "checkpointing" in r.nume:
                stil = dict(marker="s", color="tab:red", markersize=9)
            else:
                stil = dict(marker="^", color=culori.get(r.nume, "black"), markersize=9)
            ax.errorbar([x], [y], yerr=[[y - jos], [sus - y]], linestyle="none", capsize=3, **stil)
            ax.annotate(r.nume, (x, y), textcoords="offset points", xytext=(5, 4), fontsize=8)
        if len(bugete) > 1:
            ax.plot([(r.octeti_salvati if cheie == "salvat" else (r.varf_octeti or 0)) / 2**20 for r in bugete],
                    [r.timp.mediana_s * 1e3 for r in bugete], color="tab:blue", alpha=0.4, linewidth=1)
        ax.set_xlabel(eticheta)
        ax.grid(alpha=0.3)
    axe[0].set_ylabel("timpul unui pas de antrenare (ms, mediana, 20–80%)")
    figura.suptitle(titlu or "Viteză și memorie: bugetele (albastru), checkpointing-ul pe blocuri (roșu), "
                    "checkpointing-ul selectiv (verde)")
    figura.tight_layout()
    arata(figura)


def arata_tinta(rezultate: Sequence[Rezultat], referinta: str = "buget 1,0") -> None:
    """Ținta capitolului (a GPU-ului): o strategie cu vârful cu cel puțin 40% mai mic
    decât `referinta` pentru cel mult 15% mai mult timp. Spune, din cifrele tale, care o atinge."""
    dupa_nume = {r.nume: r for r in rezultate}
    ref = dupa_nume.get(referinta)
    if ref is None or ref.timp is None or not ref.varf_octeti:
        print(f"Lipsește strategia de referință „{referinta}”, cu vârful și timpul măsurate.")
        return
    atinse, aproape, randuri = [], [], []
    for r in rezultate:
        if r is ref or r.timp is None or r.varf_octeti is None or r.partitie is None:
            continue
        scadere = 1 - r.varf_octeti / ref.varf_octeti
        raport = raport_din(r.timp, ref.timp)  # timpul strategiei / timpul referinței, rundă cu rundă
        atinge = scadere >= TINTA_MEMORIE and raport.mediana <= 1 + TINTA_TIMP
        if atinge:
            (aproape if raport.capete_verdict[1] > 1 + TINTA_TIMP else atinse).append((r.nume, scadere, raport))
        schimbare = format_procent(-scadere)
        randuri.append([r.nume, schimbare if schimbare.startswith("-") else "+" + schimbare, cu_unitate(raport.mediana, "×"),
                        f"{cu_unitate(raport.capete_verdict[0], '×')} – {cu_unitate(raport.capete_verdict[1], '×')}",
                        "da" if atinge else "nu"])
    print(f"Ținta: vârful cu cel puțin {format_procent(TINTA_MEMORIE)} mai mic decât „{referinta}”, pentru cel mult "
          f"{format_procent(TINTA_TIMP)} mai mult timp pe pas.")
    print(_tabel(["strategia", "vârful, față de el", "timpul, față de el", "20–80% din runde", "o atinge (mediana)"],
                 randuri))
    for nume, scadere, raport in atinse:
        print(f"  „{nume}” o atinge: vârful cu {format_procent(scadere)} mai mic, timpul {cu_unitate(raport.mediana, '×')} "
              f"({raport.interval()}).")
    for nume, scadere, raport in aproape:
        print(f"  „{nume}” o atinge pe mediană (vârful cu {format_procent(scadere)} mai mic, timpul "
              f"{cu_unitate(raport.mediana, '×')}), dar rundele ajung până la {cu_unitate(raport.capete_verdict[1], '×')}: "
              "aici decide zgomotul.")
    if not atinse and not aproape:
        print("  Pe mașina ta, nicio strategie compilată n-o atinge.")
    if detecteaza_mediul().are_gpu is False:
        print("  Ținta e a GPU-ului: acolo recalcularea produselor de matrice costă altfel decât pe procesor. "
              + cifre.despre_referinta("diagrama viteză–memorie pe GPU", "12.varf_"))


def inregistreaza(rezultate: Sequence[Rezultat]) -> None:
    """Cifrele diagramei, în registrul validării (`cifre.inregistreaza`)."""
    for r in rezultate:
        if r.octeti_salvati is None:
            continue
        cheie = "".join(c if c.isalnum() else "_" for c in r.nume.lower()).strip("_")
        import unicodedata

        cheie = unicodedata.normalize("NFKD", cheie).encode("ascii", "ignore").decode()
        cifre.inregistreaza(f"12.salvat_{cheie}_mib", r.octeti_salvati / 2**20, "MiB",
                            f"memoria salvată pentru pasul înapoi, {r.nume}, lotul {r.lot}")
        if r.varf_octeti is not None:
            cifre.inregistreaza(f"12.varf_{cheie}_mib", r.varf_octeti / 2**20, "MiB",
                                f"vârful memoriei într-un pas peste ce era alocat, {r.nume}, lotul {r.lot}")
        if r.timp is not None:
            cifre.inregistreaza(f"12.pas_{cheie}_ms", r.timp, "ms", f"timpul unui pas de antrenare, {r.nume}, lotul {r.lot}")


# ---------------------------------------------------------------------------------------------
# 6. Întrebarea practică: ce încape sub un plafon
# ---------------------------------------------------------------------------------------------


@dataclass
class ModelMemorie:
    """Memoria unei strategii ca funcție de lot, din măsurători: vârful pasului = `alfa + beta · lot`
    (dreapta prin două măsurători; gradienții și tensorii de mărimea parametrilor sunt în `alfa`), plus
    memoria fixă (ponderile și stările lui AdamW). `loturi`/`varfuri`: măsurătorile; `timpi`: timpul
    pasului măsurat la unele loturi (lot → Masuratoare)."""

    nume: str
    fix: int
    alfa: float
    beta: float
    loturi: list = field(default_factory=list)
    varfuri: list = field(default_factory=list)
    timpi: dict = field(default_factory=dict)

    def total(self, lot: int) -> float:
        return self.fix + self.alfa + self.beta * lot

    def lot_maxim_estimat(self, plafon: float) -> int:
        if self.beta <= 0 or not math.isfinite(self.alfa):
            return 0
        return max(0, int(math.floor((plafon - self.fix - self.alfa) / self.beta)))

    def timp_pe_exemplu(self, lot: int) -> tuple[float | None, str]:
        """Timpul pe exemplu la `lot` (secunde) și de unde vine: măsurat la acel lot, sau pe dreapta prin
        cele două loturi măsurate cele mai apropiate (estimat)."""
        if lot in self.timpi:
            return self.timpi[lot].mediana_s / lot, "măsurat"
        puncte = sorted((l, m.mediana_s) for l, m in self.timpi.items())
        if not puncte:
            return None, "nemăsurat"
        if len(puncte) == 1:
            l, t = puncte[0]
            return t / l, f"estimat din lotul {format_numar(l)} (timpul pe exemplu, considerat constant)"
        (l1, t1), (l2, t2) = (puncte[0], puncte[-1]) if lot <= puncte[0][0] or lot >= puncte[-1][0] else \
            max(((a, b) for a, b in zip(puncte, puncte[1:]) if a[0] <= lot <= b[0]), key=lambda p: p[0][0])
        panta = (t2 - t1) / (l2 - l1)
        t = max(t1 + panta * (lot - l1), 1e-9)
        return t / lot, f"estimat pe dreapta prin loturile {format_numar(l1)} și {format_numar(l2)}"


def alege_bugetul(rezultate: Sequence[Rezultat], plafon: float, octeti_ficsi: int) -> str | None:
    """Dintre bugetele din `rezultate` (strategiile „buget …”), cel care încape sub `plafon` (ponderile și
    AdamW, `octeti_ficsi`, plus vârful pasului) și reface cel mai puțin (FLOP-urile produselor de matrice și
    ale atenției recalculate); la egalitate, cel cu memoria cea mai mică. None, dacă nu încape niciunul."""
    incap = [r for r in rezultate if r.nume.startswith("buget") and r.varf_octeti is not None
             and octeti_ficsi + r.varf_octeti <= plafon]
    if not incap:
        return None
    return min(incap, key=lambda r: (r.flops_recalculate, r.varf_octeti)).nume


def arata_alegerea_bugetului(rezultate: Sequence[Rezultat], plafon: float, octeti_ficsi: int) -> None:
    """Tabelul bugetelor la un lot: memoria totală a pasului față de plafon, ce refac (FLOP) și bugetul ales
    de `alege_bugetul`: cel care încape și reface cel mai puțin."""
    bugete = sorted((r for r in rezultate if r.nume.startswith("buget")), key=lambda r: -r.buget)
    randuri = []
    for r in bugete:
        total = octeti_ficsi + r.varf_octeti if r.varf_octeti is not None else None
        randuri.append([r.nume, format_octeti(total) if total is not None else "nu încape (eroare de memorie)",
                        "da" if total is not None and total <= plafon else "nu",
                        format_numar(r.flops_recalculate) if r.partitie is not None else "—",
                        _lista_operatii(_scumpe(r.recalculate), 4)])
    lot = bugete[0].lot if bugete else 0
    print(f"La lotul {format_numar(lot)}, sub plafonul de {format_octeti(plafon)}:")
    print(_tabel(["strategia", "memoria pasului", "încape", "FLOP refăcute", "refăcute (scumpe)"], randuri))
    ales = alege_bugetul(bugete, plafon, octeti_ficsi)
    if ales is None:
        print("Niciun buget nu încape la lotul acesta.")
    else:
        r = next(r for r in bugete if r.nume == ales)
        print(f"Bugetul care încape și reface cel mai puțin: „{ales}” ({format_numar(r.flops_recalculate)} FLOP refăcute).")
        pe_ordine = [x.nume for x in bugete if x.varf_octeti is not None and octeti_ficsi + x.varf_octeti <= plafon]
        if pe_ordine and pe_ordine[0] != ales:
            print(f"  Primul buget care încape, de sus în jos, e „{pe_ordine[0]}”, nu cel ales: refacerile nu cresc "
                  "neapărat la fiecare buget mai mic.")


def loturi_pentru_explorator(raspuns: "RaspunsPractic", marimi: Marimi) -> list[int]:
    """Loturile glisorului exploratorului: multipli ai lotului de lucru, până puțin peste cel mai mare lot măsurat,
    plus loturile maxime ale strategiilor."""
    cel_mai_mare = max([marimi.lot, *raspuns.loturi.values()])
    multipli = [marimi.lot * k for k in (1, 2, 3, 4, 6, 8, 12, 16, 24, 32) if marimi.lot * k <= 1.5 * cel_mai_mare]
    return sorted(set(multipli) | {l for l in raspuns.loturi.values() if l >= 1})


def plafon_pentru_mediu(banc: BancDeLucru, referinta: str = "buget 1,0") -> tuple[int, str]:
    """Plafonul de memorie al întrebării practice și propoziția care spune de unde vine:

    - pe GPU: cei 15 095 MiB ai unui T4 (cât raportează `total_memory` pe Colab); pe un T4 (real sau
      simulat) e plafonul real, pe un GPU mare doar o cifră cu care se compară;
    - pe procesor: ales de curs — exact memoria de care are nevoie strategia `referinta` (compilat,
      fără checkpointing) pentru un lot de două ori mai mare decât cel de lucru: ponderile, stările
      lui AdamW și vârful pasului, măsurat la lotul acela."""
    from ..mediu import PROFILURI_GPU_SIMULAT

    if banc.dispozitiv == "cuda":
        t4 = PROFILURI_GPU_SIMULAT["T4"].memorie_octeti
        mediu = detecteaza_mediul()
        if mediu.e_simulat or (mediu.memorie_gpu_gib or 0) * 2**30 <= t4 * 1.05:
            return t4, (f"Plafonul: memoria unui T4 ({format_octeti(t4)}), cea a GPU-ului tău: aici e un plafon adevărat, "
                        "iar un lot prea mare se oprește cu o eroare de memorie.")
        return t4, (f"Plafonul: memoria unui T4 ({format_octeti(t4)}). GPU-ul tău are mai multă: plafonul e o cifră cu care "
                    "se compară vârful măsurat, nu o limită a alocatorului.")
    lot = 2 * banc.marimi.lot
    varf = banc.varf(referinta, lot) or 0
    plafon = banc.octeti_ficsi + varf
    return plafon, (f"Plafonul, ales de curs pe procesor: {format_octeti(plafon)} = ponderile și stările lui AdamW "
                    f"({format_octeti(banc.octeti_ficsi)}) + vârful pasului „{referinta}” la lotul {format_numar(lot)} "
                    f"({format_octeti(varf)}, măsurat). Pe procesor nu există un plafon adevărat: e memoria cu care "
                    f"„{referinta}” duce exact lotul {format_numar(lot)}.")


def model_memorie(banc: BancDeLucru, nume: str, loturi: Sequence[int] | None = None) -> ModelMemorie:
    """Vârful pasului strategiei `nume` măsurat la două loturi (implicit lotul de lucru și dublul lui),
    ca dreaptă în funcție de lot."""
    loturi = list(loturi or (banc.marimi.lot, 2 * banc.marimi.lot))
    masurate = [(l, v) for l in loturi if (v := _varf_sau_nimic(banc, nume, l)) is not None]
    if not masurate:
        return ModelMemorie(nume, banc.octeti_ficsi, math.inf, 0.0, [], [])
    (l1, v1), (l2, v2) = masurate[0], masurate[-1]
    beta = (v2 - v1) / (l2 - l1) if l2 != l1 else v1 / max(l1, 1)  # un singur lot: vârful proporțional cu lotul
    alfa = v1 - beta * l1
    return ModelMemorie(nume, banc.octeti_ficsi, alfa, beta, [l for l, _ in masurate], [v for _, v in masurate])


def _varf_sau_nimic(banc: BancDeLucru, nume: str, lot: int) -> int | None:
    """Vârful pasului strategiei `nume` la `lot`, sau None dacă pe GPU nu încape (eroare de memorie)."""
    try:
        return banc.varf(nume, lot)
    except torch.OutOfMemoryError:
        banc.optimizator.zero_grad(set_to_none=True)
        torch.cuda.empty_cache()
        return None


def _incape(banc: BancDeLucru, nume: str, lot: int, plafon: float) -> tuple[bool, int | None]:
    """Dacă pasul strategiei `nume` la lotul `lot` încape sub plafon: vârful măsurat (pe GPU, o eroare
    de memorie înseamnă „nu”)."""
    varf = _varf_sau_nimic(banc, nume, lot)
    if varf is None:
        return False, None
    return banc.octeti_ficsi + varf <= plafon, varf


#: Cel mai mare lot pe care îl încearcă întrebarea practică (la un model mic, plafonul ar permite loturi uriașe).
LOT_MAXIM_CAUTAT = 4096


def lot_maxim(banc: BancDeLucru, nume: str, plafon: float, model: ModelMemorie | None = None,
              maxim: int = LOT_MAXIM_CAUTAT) -> tuple[int, ModelMemorie]:
    """Cel mai mare lot cu care pasul strategiei `nume` încape sub `plafon`: estimat din dreapta
    memoriei (`model_memorie`), apoi verificat cu o măsurătoare la lotul estimat (și coborât, cât nu
    încape; urcat, cât încape și lotul următor). Întoarce lotul (0: nici lotul 1 nu încape) și modelul,
    cu măsurătorile noi adăugate."""
    model = model or model_memorie(banc, nume)
    lot = min(maxim, model.lot_maxim_estimat(plafon))
    for _ in range(6):
        if lot < 1:
            return 0, model
        incape, varf = _incape(banc, nume, lot, plafon)
        if varf is not None:
            model.loturi.append(lot)
            model.varfuri.append(varf)
        if incape:
            urmator, varf_urmator = _incape(banc, nume, lot + 1, plafon) if lot < maxim else (False, None)
            if varf_urmator is not None:
                model.loturi.append(lot + 1)
                model.varfuri.append(varf_urmator)
            if not urmator:
                return lot, model
            lot += 1
        else:
            lot = max(0, lot - max(1, lot // 20))
    return lot, model


@dataclass
class RaspunsPractic:
    """Răspunsul întrebării practice: plafonul, pentru fiecare strategie cel mai mare lot și modelul
    memoriei, timpii măsurați la acel lot și cea mai rapidă pe exemplu."""

    plafon: int
    explicatie_plafon: str
    loturi: dict
    modele: dict
    comparatie: Comparatie | None
    cea_mai_rapida: str | None
    #: Cel mai mare lot încercat: un lot egal cu el înseamnă „cel puțin atât”, nu „exact atât”.
    lot_limita: int = LOT_MAXIM_CAUTAT


def cel_mai_rapid_care_incape(banc: BancDeLucru, nume: Sequence[str], plafon: int | None = None,
                              explicatie: str = "") -> RaspunsPractic:
    """Întrebarea practică: sub `plafon` (implicit `plafon_pentru_mediu`), cel mai mare lot al fiecărei
    strategii și timpul unui pas la acel lot (toate intercalat); cea mai rapidă e cea cu cel mai mic
    timp pe exemplu."""
    if plafon is None:
        plafon, explicatie = plafon_pentru_mediu(banc)
    loturi, modele = {}, {}
    for n in nume:
        loturi[n], modele[n] = lot_maxim(banc, n, plafon)
    care = [n for n in nume if loturi[n] >= 1]
    comparatie = None
    if care:
        variante = {}
        for n in care:
            x, tinta = banc.intrari(loturi[n])
            variante[n] = lambda s=banc.strategii[n], x=x, tinta=tinta: banc._pas(s, x, tinta)
        pe_gpu = banc.dispozitiv == "cuda"
        with _limita_mare_de_recompilari():
            for pas in variante.values():  # încălzirea, la lotul nou (fără recompilare: lotul e dinamic)
                pas()
            # la loturile mari un pas poate dura secunde: un număr fix de pași, intercalat, nu `compara`,
            # care își alege numărul de rulări după timp
            with torch.compiler.set_stance("fail_on_recompile") if hasattr(torch.compiler, "set_stance") \
                    else contextlib.nullcontext():
                comparatie = compara_pasi_ficsi(variante, runde=dimensiune(gpu=5, cpu=3, rapid=3),
                                                pasi_pe_runda=dimensiune(gpu=2, cpu=1, rapid=1), pe_gpu=pe_gpu)
        for n in care:
            modele[n].timpi[loturi[n]] = comparatie[n]
    pe_exemplu = {n: comparatie[n].mediana_s / loturi[n] for n in care} if comparatie else {}
    cea_mai_rapida = min(pe_exemplu, key=pe_exemplu.get) if pe_exemplu else None
    return RaspunsPractic(plafon, explicatie, loturi, modele, comparatie, cea_mai_rapida)


def arata_intrebarea_practica(raspuns: RaspunsPractic, referinta: str = "buget 1,0") -> None:
    """Tabelul întrebării practice și verdictele: cine duce cel mai mare lot, cine e cel mai rapid pe exemplu."""
    print(raspuns.explicatie_plafon)
    randuri = []
    for n, lot in raspuns.loturi.items():
        model = raspuns.modele[n]
        masurat = dict(zip(model.loturi, model.varfuri))
        varf = masurat.get(lot)
        total = format_octeti(model.fix + varf) if varf is not None else "—"
        timp = pe_exemplu = "—"
        if raspuns.comparatie is not None and n in raspuns.comparatie.masuratori:
            m = raspuns.comparatie[n]
            timp = format_timp(m.mediana_s)
            pe_exemplu = format_timp(m.mediana_s / lot)
        text_lot = format_numar(lot) if lot else "nu încape"
        if lot >= raspuns.lot_limita:
            text_lot = f"cel puțin {text_lot} (limita căutării)"
        randuri.append([n, text_lot, total, timp, pe_exemplu])
    print(_tabel(["strategia", "cel mai mare lot", "memoria la acel lot", "timpul pasului", "timpul pe exemplu"], randuri))
    fix = next(iter(raspuns.modele.values())).fix if raspuns.modele else 0
    parte = fix / raspuns.plafon if raspuns.plafon else 0
    print(f"Din plafon, ponderile și stările lui AdamW ocupă {format_procent(parte)}; restul e pentru pasul însuși.")
    if parte > 0.5:
        print("  Ponderile ocupă mai mult de jumătate din plafon: pentru activări rămâne puțin, deci loturile diferă puțin "
              "între strategii și nu spun mare lucru despre ele (la modelul mare, pe GPU, activările cântăresc mult mai mult).")
    ref_lot = raspuns.loturi.get(referinta)
    if ref_lot:
        cel_mai_mare = max(raspuns.loturi, key=raspuns.loturi.get)
        factor = raspuns.loturi[cel_mai_mare] / ref_lot
        print(f"Cel mai mare lot îl duce „{cel_mai_mare}”: {format_numar(raspuns.loturi[cel_mai_mare])}, adică "
              f"{cu_unitate(factor, '×')} lotul lui „{referinta}” ({format_numar(ref_lot)}).")
        cifre.inregistreaza("12.lot_maxim_fata_de_fara_checkpointing", factor, "×",
                            f"cel mai mare lot sub plafon, „{cel_mai_mare}” față de „{referinta}”")
    if raspuns.cea_mai_rapida is not None and raspuns.comparatie is not None:
        n = raspuns.cea_mai_rapida
        print(f"Cea mai rapidă pe exemplu, între cele care încap: „{n}”, "
              f"{format_timp(raspuns.comparatie[n].mediana_s / raspuns.loturi[n])} pe exemplu la lotul {format_numar(raspuns.loturi[n])}.")
        pe_exemplu = {m: raspuns.comparatie[m].mediana_s / raspuns.loturi[m] for m in raspuns.comparatie.masuratori}
        urmatoarea = sorted(pe_exemplu, key=pe_exemplu.get)[1:2]
        if urmatoarea:
            a = urmatoarea[0]
            # raportul timpilor pe exemplu, rundă cu rundă: (timpul lui a / lotul lui a) / (timpul lui n / lotul lui n)
            raport = raport_din(_pe_exemplu(raspuns.comparatie[a], raspuns.loturi[a]),
                                _pe_exemplu(raspuns.comparatie[n], raspuns.loturi[n]))
            print("  Timpul pe exemplu: " + concluzie_accelerare(raport, f"„{n}”", f"„{a}” (a doua, ca timp pe exemplu)",
                                                                 feminin=False, ce_se_compara="variante"))


def _pe_exemplu(m: Masuratoare, lot: int) -> Masuratoare:
    return replace(m, mediana_s=m.mediana_s / lot, cuantila20_s=m.cuantila20_s / lot, cuantila80_s=m.cuantila80_s / lot,
                   mediane_runde=tuple(t / lot for t in m.mediane_runde))


def exploreaza_plafonul(raspuns: RaspunsPractic, loturi: Sequence[int]) -> None:
    """Explorator: alegi strategia (un buget, checkpointing-ul, checkpointing-ul selectiv) și lotul; vezi
    memoria pasului față de plafon (din dreapta măsurată a strategiei), dacă încape și timpul pe exemplu.
    Totul vine din măsurătorile de mai sus: exploratorul nu mai compilează și nu mai rulează nimic."""
    import matplotlib.pyplot as plt

    from ..explorator import Control, exploreaza
    from ..grafice import arata

    def actualizeaza(strategie: str, lot: int):
        model = raspuns.modele[strategie]
        masurat = dict(zip(model.loturi, model.varfuri))
        varf = masurat.get(lot)
        sursa = "măsurat" if varf is not None else "estimat pe dreapta prin loturile măsurate"
        varf = varf if varf is not None else model.alfa + model.beta * lot
        ponderi = model.fix / 3
        figura, ax = plt.subplots(figsize=(8, 2.6))
        ax.barh([0], [ponderi / 2**20], color="tab:gray", label="ponderile")
        ax.barh([0], [2 * ponderi / 2**20], left=[ponderi / 2**20], color="silver", label="stările lui AdamW")
        ax.barh([0], [varf / 2**20], left=[model.fix / 2**20], color="tab:orange", label="vârful pasului")
        ax.axvline(raspuns.plafon / 2**20, color="red", linestyle="--", label="plafonul")
        ax.set_yticks([])
        ax.set_xlabel("MiB")
        ax.set_title(f"{strategie}, lotul {format_numar(lot)}")
        ax.legend(loc="lower right", fontsize=8)
        figura.tight_layout()
        arata(figura)
        total = model.fix + varf
        incape = total <= raspuns.plafon
        print(f"Memoria pasului: {format_octeti(total)} ({sursa}); plafonul: {format_octeti(raspuns.plafon)}: "
              + ("încape." if incape else f"NU încape, depășește cu {format_octeti(total - raspuns.plafon)}."))
        print(f"Cel mai mare lot care încape pentru „{strategie}”: {format_numar(raspuns.loturi.get(strategie, 0))} (măsurat).")
        timp, sursa_timp = model.timp_pe_exemplu(lot)
        if timp is not None:
            print(f"Timpul pe exemplu: {format_timp(timp)} ({sursa_timp}).")

    optiuni = list(raspuns.modele)
    loturi = sorted(set(int(l) for l in loturi))
    exploreaza(
        actualizeaza,
        strategie=Control("strategia", optiuni, optiuni[0]),
        lot=Control("lotul", loturi, loturi[len(loturi) // 2]),
    )


# ---------------------------------------------------------------------------------------------
# Instantaneul memoriei (GPU)
# ---------------------------------------------------------------------------------------------


def instantaneu_memorie(pas: Callable[[], object], nume: str = "12_instantaneu") -> Path | None:
    """Pe GPU: înregistrează istoria alocărilor pe durata unui pas
    (`torch.cuda.memory._record_memory_history`) și o scrie într-un fișier `.pickle`
    (`torch.cuda.memory._dump_snapshot`), pe care îl deschizi în vizualizatorul de memorie al PyTorch.
    Întoarce calea fișierului. Pe procesor nu există: tipărește ce ar face și întoarce None."""
    if not torch.cuda.is_available():
        print("Instantaneul memoriei (memory snapshot) se face doar pe un GPU CUDA: alocatorul GPU-ului ține istoria "
              "fiecărei alocări, cu stiva de apeluri care a cerut-o. "
              + cifre.despre_referinta("instantaneul memoriei unui pas (fișierul .pickle al capitolului 12)",
                                       "12.instantaneu"))
        _cum_il_deschizi()
        return None
    radacina = cifre.radacina_cursului() or Path.cwd()
    dosar = radacina / "build" / "memorie"
    dosar.mkdir(parents=True, exist_ok=True)
    cale = dosar / f"{nume}.pickle"
    torch.cuda.synchronize()
    torch.cuda.memory._record_memory_history(max_entries=200_000)
    try:
        pas()
        torch.cuda.synchronize()
        torch.cuda.memory._dump_snapshot(str(cale))
    finally:
        torch.cuda.memory._record_memory_history(enabled=None)
    print(f"Instantaneul memoriei: {cale} ({format_octeti(cale.stat().st_size)}).")
    cifre.inregistreaza("12.instantaneu_octeti", cale.stat().st_size, "B", "mărimea instantaneului memoriei unui pas")
    _cum_il_deschizi()
    return cale


def _cum_il_deschizi() -> None:
    print("Cum îl deschizi: în browser, la https://pytorch.org/memory_viz, tragi fișierul .pickle în pagină (fișierul "
          "nu pleacă de pe mașina ta: pagina îl citește local). Fila „Active Memory Timeline” arată fiecare tensor ca o "
          "bandă colorată, de la alocare la eliberare: activările se adună în pasul înainte și pleacă în pasul înapoi. "
          "Fără pagina web, `python -m torch.cuda._memory_viz trace_plot fisier.pickle -o fisier.html` scrie aceeași "
          "vizualizare într-un HTML (care își încarcă scriptul tot de pe internet).")
