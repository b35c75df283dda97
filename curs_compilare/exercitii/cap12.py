"""Verificările exercițiilor din capitolul 12 — memoria sub compilare.

- exercițiul 1: `politica_matmul(ctx, op, *args, **kwargs)` e o politică de checkpointing selectiv care
  păstrează doar ieșirile produselor de matrice (`aten.mm`, `aten.addmm`, `aten.bmm`) și recalculează
  restul, iar `bloc_cu_sac(bloc, x)` o aplică unui bloc, cu `torch.utils.checkpoint.checkpoint`
  (nereentrant, `context_fn` din `create_selective_checkpoint_contexts`). Verificarea cheamă întâi
  politica direct, pe o listă de operații (produsele de matrice, atenția, operații element cu element,
  o normalizare, o reducere, vederi), apoi compilează stiva de blocuri a capitolului cu `bloc_cu_sac`
  în regiunea compilată și măsoară ce salvează și ce recalculează graful: checkpointing-ul trebuie să
  ajungă în regiunea compilată (câte o regiune pe bloc), graful să salveze doar ieșirile produselor de
  matrice și intrările blocurilor (acestea, octet cu octet), să nu recalculeze niciun produs de matrice, să
  recalculeze atenția, să salveze vizibil mai puțin decât fără checkpointing și să nu recompileze la al
  doilea pas;
- exercițiul 2: `alege_bugetul(masoara, plafon, bugete)` întoarce bugetul din `bugete` cu care pasul
  încape sub `plafon` (octeți) și recalculează cel mai puțin (FLOP-urile produselor de matrice și ale
  atenției refăcute), sau None dacă niciunul nu încape. `masoara(buget)` întoarce o `Masura` (octeții
  salvați, vârful pasului, memoria totală, FLOP-urile recalculate), măsurată de verificare înainte;
- exercițiul 3: `prezice_recalcularile(activare, cu_norma)` întoarce mulțimea operațiilor (nume aten,
  ca „tanh”, „mul”) pe care partiționatorul le recalculează în pasul înapoi, cu bugetul implicit, pentru
  blocul `BlocMLP(lățime, activare, cu_norma)` al capitolului (fără vederi).

Toate verificările rulează pe procesor, pe modele minuscule, cu grafurile partiționate rulate operație cu
operație (`Compilator(genereaza_cod=False)`: aceeași partiționare ca Inductor, fără compilarea C++), ca să
fie rapide și deterministe și pe o mașină cu GPU. Cazurile care decid verdictul sunt în fiecare rulare: la
exercițiul 1, două lățimi diferite ale modelului (o politică potrivită doar pe o formă se vede); la
exercițiul 2, un plafon sub care încape orice buget, unul sub care încape doar bugetul cu cea mai mică
memorie, unul la mijloc și unul sub care nu încape niciunul; la exercițiul 3, toate cele 10 combinații
(activare, normalizare; fără SiLU, vezi `ACTIVARI_3`). Ce alege întâmplarea (`CURS_SEMINTA=…` o fixează):
mărimile modelelor, dintr-o listă mică, și marginile plafoanelor. Codul tău se apelează numai prin
`apeleaza` (din `baza`), cu limită de timp; o greșeală devine o explicație în română, nu un traceback.
Verificarea nu ține nicio politică sau funcție de referință ca atribut al modulului; cifrele ei (octeți,
FLOP) se păstrează între verificări, ca a doua verificare pe aceleași mărimi să nu mai compileze."""

from __future__ import annotations

import contextlib
import math
from collections import Counter
from dataclasses import dataclass

import torch
from torch import nn

from ..capitole import cap12_memorie as mem12
from ..cifre import cu_substantiv, format_numar, format_octeti, format_procent
from .baza import (
    cere_functie,
    GresealaCursant,
    Rezultat,
    apeleaza,
    configuratia_compilatorului,
    configuratie_dynamo_implicita,
    fara_jurnale_torch,
    generator_aleator,
    verificare,
)

__all__ = [
    "exercitiul_1",
    "exercitiul_2",
    "exercitiul_3",
    "Masura",
    "LIMITA_APEL_S",
    "LATIMI_1",
    "LATIMI_3",
]

#: Cât are voie să dureze un apel al codului tău (o politică, o alegere, o predicție).
LIMITA_APEL_S = 30.0
#: Cât are voie să dureze o compilare a stivei cu funcția ta (pe un procesor cu două nuclee, câteva secunde).
LIMITA_COMPILARE_S = 180.0
_LIMITA_1_S = 3 * LIMITA_COMPILARE_S
_LIMITA_2_S = 240.0
_LIMITA_3_S = 240.0

#: Lățimile modelului din exercițiul 1: prima e în fiecare rulare, a doua e aleasă din rest.
LATIMI_1 = (16, 24, 32)
#: Lățimile blocului din exercițiul 3 (una, aleasă la întâmplare).
LATIMI_3 = (16, 24)
#: Activările exercițiului 3: cele ale capitolului, fără SiLU. Pasul înainte al lui SiLU e aceeași
#: descompunere în toate versiunile (x / (1 + exp(−x)): `neg`, `exp`, `add`, `div`), dar pasul înapoi
#: diferă: torch 2.11 reface `neg`, `exp` și `add` din graful înainte, versiunile noi își calculează
#: sigmoida chiar în pasul înapoi, din intrarea salvată (acolo nu se reface nimic). Un răspuns corect
#: pe o mașină ar fi greșit pe alta, deci SiLU nu intră în predicție.
ACTIVARI_3 = tuple(a for a in mem12.ACTIVARI if a != "silu")
#: Câte combinații (activare, normalizare) verifică exercițiul 3.
COMBINATII_3 = 2 * len(ACTIVARI_3)

aten = torch.ops.aten
_CP = torch.utils.checkpoint.CheckpointPolicy


# ---------------------------------------------------------------------------------------------
# Unelte comune
# ---------------------------------------------------------------------------------------------


@contextlib.contextmanager
def _mediu_verificare():
    """Cât ține blocul: fără jurnalele lui PyTorch, cu opțiunile lui Dynamo implicite (oricum le-ar fi
    lăsat o celulă de mai sus), cu limita de recompilări mare (fiecare model nou al verificării e o intrare
    nouă în cache-ul lui Dynamo) și fără profilul rapid al capitolului (verificarea își alege singură
    mărimile)."""
    with fara_jurnale_torch(), configuratie_dynamo_implicita(), mem12._limita_mare_de_recompilari():
        yield


def _configuratia() -> dict:
    """Configurația lui Dynamo, a lui Inductor și a lui AOTAutograd (unde stă bugetul de memorie)."""
    configuratie = configuratia_compilatorului()
    configuratie["torch._functorch.config"] = torch._functorch.config.get_config_copy()
    return configuratie


def _schimbari(inainte: dict) -> list[str]:
    acum = _configuratia()
    schimbate = []
    for modul, valori in inainte.items():
        for cheie, valoare in valori.items():
            try:
                diferita = acum[modul].get(cheie, valoare) != valoare
            except Exception:  # noqa: BLE001 - valori care nu se pot compara
                diferita = False
            if diferita:
                schimbate.append(f"{modul}.{cheie}")
    return schimbate


def _apeleaza(functie, *argumente, ce: str, interzise: dict | None = None, limita_s: float | None = None):
    """Codul tău, prin `apeleaza`, cu limita `limita_s` (implicit `LIMITA_APEL_S`, citită la apel); o schimbare a
    configurației compilatorului (și a bugetului de memorie) e pusă la loc și respinsă."""
    inainte = _configuratia()
    try:
        with fara_jurnale_torch():
            return apeleaza(functie, *argumente, limita_s=limita_s or LIMITA_APEL_S, interzise=interzise, ce=ce)
    finally:
        schimbate = _schimbari(inainte)
        if schimbate:
            _pune_la_loc(inainte, schimbate)
            raise GresealaCursant(
                f"{ce[0].upper()}{ce[1:]} schimbă configurația globală a compilatorului "
                f"({', '.join(f'`{n}`' for n in schimbate[:3])}): schimbarea ar rămâne în tot notebook-ul. Am pus-o "
                "la loc; scoate-o din funcție (bugetul, de exemplu, îl alegi, nu îl setezi)."
            )


def _pune_la_loc(inainte: dict, schimbate: list[str]) -> None:
    import importlib
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for nume in schimbate:
            modul, _, cheie = nume.rpartition(".")
            with contextlib.suppress(Exception):
                setattr(importlib.import_module(modul), cheie, inainte[modul][cheie])


def _numar(valoare: float) -> str:
    return format_numar(valoare)


#: Cifrele verificărilor, păstrate între verificări (octeți, FLOP, operații), pe chei de mărimi.
_CIFRE: dict = {}


class _StivaVerificare(mem12.StivaBlocuri):
    """Stiva capitolului, cu o metodă `forward` proprie: compilările verificării stau în cache-ul lui
    Dynamo pe alt cod decât cele din notebook, ca să nu se amestece."""

    def forward(self, x):
        for bloc in self.blocuri:
            x = self.invelis(bloc, x) if self.invelis is not None else bloc(x)
        return x


class _BlocMLPVerificare(mem12.BlocMLP):
    """`BlocMLP` al capitolului, cu o metodă `forward` proprie (același calcul), din același motiv."""

    def forward(self, x):
        return x + self.jos(mem12.ACTIVARI[self.activare](self.sus(self.norma(x))))


def _clasa_proaspata(clasa: type) -> type:
    """O subclasă a lui `clasa` cu o metodă `forward` care are un obiect de cod nou (același cod): Dynamo își
    ține compilările și ce a învățat despre un cod (de exemplu, o întrerupere a grafului găsită într-o
    verificare de dinainte) pe obiectul de cod, așa că fiecare compilare a verificării pornește de la zero."""
    import types

    functie = clasa.forward
    cod = functie.__code__.replace()
    if cod is functie.__code__:  # pragma: no cover - `replace()` fără argumente întoarce mereu un obiect nou
        cod = functie.__code__.replace(co_name=functie.__code__.co_name)
    noua = types.FunctionType(cod, functie.__globals__, functie.__name__, functie.__defaults__, functie.__closure__)
    return type(clasa.__name__, (clasa,), {"forward": noua})


def _marimi_1(latime: int) -> mem12.Marimi:
    return mem12.Marimi(nr_blocuri=2, dim_model=latime, nr_capete=2, lungime=8, lot=2)


def _stiva(marimi: mem12.Marimi, invelis=None) -> _StivaVerificare:
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(0)
        return _clasa_proaspata(_StivaVerificare)(marimi, invelis)


def _partitie(model: nn.Module, x: torch.Tensor, tinta: torch.Tensor, buget: float = 1.0):
    """Compilează `model` cu partiționarea lui Inductor (fără cod generat), rulează un pas înainte și
    înapoi și întoarce funcția compilată și partiția."""
    compilator = mem12.Compilator(buget, genereaza_cod=False)
    functie = torch.compile(model, backend=compilator)
    mem12.un_pas(functie, x, tinta)
    return functie, compilator.partitie


def _intrari(marimi: mem12.Marimi, seminta: int = 0):
    return mem12.lot_de_intrari(marimi, dispozitiv="cpu", seminta=seminta, dinamic=False)


# ---------------------------------------------------------------------------------------------
# Exercițiul 1: o politică de checkpointing selectiv care păstrează doar produsele de matrice
# ---------------------------------------------------------------------------------------------

#: Operațiile pe care e încercată politica: ce întoarce pentru fiecare.
def _operatii_proba() -> dict:
    operatii = {op: "produs de matrice" for op in mem12.OPERATII_MATMUL}
    operatii.update({op: "atenție" for op in mem12.OPERATII_ATENTIE})
    for op, fel in ((aten.mul.Tensor, "element cu element"), (aten.add.Tensor, "element cu element"),
                    (aten.tanh.default, "element cu element"), (aten.gelu.default, "element cu element"),
                    (aten.native_layer_norm.default, "normalizare"), (aten.var_mean.correction, "reducere"),
                    (aten.view.default, "vedere"), (aten.t.default, "vedere"), (aten.split.Tensor, "vedere")):
        operatii[op] = fel
    return operatii


def _salveaza(decizie) -> bool:
    return decizie in (_CP.MUST_SAVE, _CP.PREFER_SAVE)


def _decizia(politica, op, interzise) -> object:
    """Ce întoarce politica pentru `op` (pasul înainte, `is_recompute=False`), ca `CheckpointPolicy`."""
    ctx = torch.utils.checkpoint.SelectiveCheckpointContext(is_recompute=False)
    decizie = _apeleaza(politica, ctx, op, ce="politica ta", interzise=interzise)
    if isinstance(decizie, bool):
        return _politica_din_bool(decizie)
    if not isinstance(decizie, _CP):
        raise GresealaCursant(
            f"Politica ta a întors {type(decizie).__name__} ({decizie!r}) pentru `{op}`: trebuia o valoare "
            "`CheckpointPolicy` (`CheckpointPolicy.MUST_SAVE` ca să păstrezi ieșirea, "
            "`CheckpointPolicy.PREFER_RECOMPUTE` ca s-o refaci în pasul înapoi)."
        )
    return decizie


def _politica_din_bool(valoare: bool):
    """Ce face PyTorch cu o politică veche, care întoarce adevărat/fals: adevărat = păstrează."""
    return _CP.MUST_SAVE if valoare else _CP.PREFER_RECOMPUTE


def _nume_op(op) -> str:
    return f"`aten.{mem12.nume_operatie(op)}`"


def _verifica_politica(politica, interzise) -> bool:
    """Politica, chemată direct pe operațiile de probă. Întoarce True dacă a putut fi judecată așa (altfel,
    de exemplu dacă citește `args`, doar compilarea o judecă)."""
    operatii = _operatii_proba()
    decizii = {}
    for op in operatii:
        try:
            decizii[op] = _decizia(politica, op, interzise)
        except GresealaCursant as greseala:
            eroare = getattr(greseala, "exceptie", None)
            if isinstance(eroare, (IndexError, KeyError)) or (eroare is not None and "args" in str(eroare)):
                return False  # politica citește argumentele operației: o judecă doar compilarea
            raise
    matmul = [op for op, fel in operatii.items() if fel == "produs de matrice"]
    salvate = {op for op, d in decizii.items() if _salveaza(d)}
    if salvate == set(operatii):
        raise GresealaCursant(
            "Politica ta păstrează tot (întoarce „salvează” pentru fiecare operație): atunci checkpointing-ul nu "
            "schimbă nimic, pasul înapoi găsește tot ce găsea și fără el, iar memoria rămâne aceeași. Întoarce "
            "`CheckpointPolicy.MUST_SAVE` doar pentru produsele de matrice și `CheckpointPolicy.PREFER_RECOMPUTE` "
            "pentru rest."
        )
    if not salvate:
        pachete = {op.overloadpacket for op in matmul}
        cu_pachete = False
        with contextlib.suppress(Exception):
            cu_pachete = any(_salveaza(_decizia(politica, p, interzise)) for p in pachete)
        if cu_pachete:
            raise GresealaCursant(
                "Politica ta nu păstrează nimic: pentru `aten.mm.default` și `aten.addmm.default` întoarce „refă”. "
                "Pentru pachetul `torch.ops.aten.mm` (fără `.default`) ar spune „salvează”: compari `op` cu pachetul, "
                "dar politica primește supraîncărcarea (`OpOverload`), de exemplu `torch.ops.aten.mm.default`. "
                "Compară cu supraîncărcările (`mem12.OPERATII_MATMUL`) sau cu `op.overloadpacket`."
            )
        raise GresealaCursant(
            "Politica ta nu păstrează nimic (întoarce „refă” pentru fiecare operație, și pentru produsele de matrice): "
            "asta e checkpointing-ul complet, din secțiunea 3, nu cel selectiv. Întoarce `CheckpointPolicy.MUST_SAVE` "
            "pentru `aten.mm`, `aten.addmm` și `aten.bmm`."
        )
    lipsa = [op for op in matmul if op not in salvate]
    if lipsa:
        explicatie = ""
        if aten.addmm.default in lipsa:
            explicatie = (" `nn.Linear` cu bias devine `aten.addmm` (produsul plus bias-ul, într-o operație), nu "
                          "`aten.mm`: fără `addmm`, straturile liniare ale blocului se refac toate.")
        raise GresealaCursant(
            f"Politica ta nu păstrează {', '.join(_nume_op(op) for op in lipsa)}: un produs de matrice refăcut în "
            f"pasul înapoi costă cât în pasul înainte.{explicatie} Păstrează toate trei: `mm`, `addmm`, `bmm`."
        )
    in_plus = [op for op in salvate if operatii[op] != "produs de matrice"]
    if in_plus:
        atentie = [op for op in in_plus if operatii[op] == "atenție"]
        if atentie and len(atentie) == len(in_plus):
            raise GresealaCursant(
                "Politica ta păstrează și ieșirile atenției (SDPA): e politica din secțiunea 4. Exercițiul cere doar "
                "produsele de matrice, ca să vezi cât costă refacerea atenției și câtă memorie eliberează. Întoarce "
                "„refă” (`CheckpointPolicy.PREFER_RECOMPUTE`) pentru tot ce nu e `mm`, `addmm` sau `bmm`."
            )
        descriere = ", ".join(f"{_nume_op(op)} ({operatii[op]})" for op in in_plus[:4])
        raise GresealaCursant(
            f"Politica ta păstrează și alte operații decât produsele de matrice: {descriere}. Exercițiul cere o politică "
            "care păstrează doar ieșirile lui `mm`, `addmm` și `bmm` și reface restul."
        )
    return True


def _foloseste_checkpoint_eager(bloc_cu_sac, marimi: mem12.Marimi, interzise) -> bool:
    """Rulează `bloc_cu_sac` pe un bloc, fără compilare, cu cârligele pentru tensorii salvați: în interiorul
    unui `checkpoint` nereentrant, cârligele lui iau locul celor din afară, deci cârligele verificării nu
    văd aproape nimic. Întoarce True dacă funcția ta pune blocul într-un checkpoint."""
    stiva = _stiva(marimi)
    bloc = stiva.blocuri[0]
    x, _ = _intrari(marimi)
    x = x.clone().requires_grad_()
    vazute = []

    def impacheteaza(t):
        vazute.append(t.numel())
        return t

    with torch.autograd.graph.saved_tensors_hooks(impacheteaza, lambda t: t):
        iesire = _apeleaza(bloc_cu_sac, bloc, x, ce="funcția ta `bloc_cu_sac`", interzise=interzise)
    if not isinstance(iesire, torch.Tensor):
        raise GresealaCursant(
            f"`bloc_cu_sac` a întors {type(iesire).__name__}, nu un tensor: trebuia ieșirea blocului, "
            "`checkpoint(bloc, x, use_reentrant=False, context_fn=...)`. Ai uitat `return`?"
        )
    if tuple(iesire.shape) != tuple(x.shape):
        raise GresealaCursant(f"`bloc_cu_sac` a întors un tensor de forma {tuple(iesire.shape)}, dar ieșirea blocului are "
                              f"forma intrării, {tuple(x.shape)}.")
    with torch.no_grad():
        asteptat = bloc(x)
    if not torch.allclose(iesire.detach(), asteptat, rtol=1e-4, atol=1e-5):
        raise GresealaCursant("`bloc_cu_sac` nu întoarce ieșirea blocului: `checkpoint(bloc, x, ...)` trebuie să dea exact "
                              "ce dă `bloc(x)`, doar memoria pasului înapoi se schimbă.")
    iesire.sum().backward()
    return sum(vazute) < 0.1 * sum(p.numel() for p in bloc.parameters()) + x.numel() + 1


def _eager_1(marimi: mem12.Marimi) -> int:
    """Octeții salvați de stiva fără checkpointing, în modul eager (cârligele; păstrați între verificări)."""
    cheie = ("1", marimi)
    if cheie not in _CIFRE:
        x, tinta = _intrari(marimi)
        stiva = _stiva(marimi)
        _CIFRE[cheie] = mem12.inventar_eager(stiva, x, tinta).octeti
    return _CIFRE[cheie]


def _granite_1(marimi: mem12.Marimi) -> int:
    """Octeții intrărilor blocurilor, în afară de primul (intrarea lui e intrarea stivei): ce păstrează și
    checkpointing-ul complet."""
    return (marimi.nr_blocuri - 1) * marimi.lot * marimi.lungime * marimi.dim_model * 4


def _interzise_1() -> None:
    """Exercițiul 1 n-are unelte interzise: verificarea însăși compilează prin `mem12.Compilator` cât rulează
    funcția ta, iar politica și învelișul le scrii oricum tu."""
    return None


def exercitiul_1(politica_matmul, bloc_cu_sac) -> Rezultat:
    """Verifică politica `politica_matmul(ctx, op, *args, **kwargs)` și `bloc_cu_sac(bloc, x)`, care o
    aplică unui bloc cu `checkpoint(..., use_reentrant=False, context_fn=...)`: politica păstrează doar
    ieșirile produselor de matrice; în stiva compilată, fiecare bloc e o regiune de checkpointing, graful
    salvează exact ieșirile produselor de matrice (și intrările blocurilor), nu recalculează niciun produs
    de matrice, recalculează atenția și nu recompilează la un pas nou."""

    def corp():
        cere_functie(politica_matmul, "politica_matmul(ctx, op, *args, **kwargs)", 2, "politica_matmul")
        cere_functie(bloc_cu_sac, "bloc_cu_sac(bloc, x)", 2, "bloc_cu_sac")
        rng = generator_aleator()
        interzise = _interzise_1()
        with _mediu_verificare():
            _verifica_politica(politica_matmul, interzise)
            latimi = [LATIMI_1[0], rng.choice(LATIMI_1[1:])]
            if not _foloseste_checkpoint_eager(bloc_cu_sac, _marimi_1(latimi[0]), interzise):
                raise GresealaCursant(
                    "`bloc_cu_sac` nu pune blocul într-un `checkpoint`: rulat fără compilare, blocul salvează pentru pasul "
                    "înapoi tot ce salvează fără checkpointing. Întoarce `checkpoint(bloc, x, use_reentrant=False, "
                    "context_fn=...)`, cu `context_fn` făcut din politica ta."
                )
            masurate = []
            for i, latime in enumerate(latimi):
                masurate.append(_masoara_1(bloc_cu_sac, _marimi_1(latime), interzise, prima=(i == 0),
                                           latime_trecuta=latimi[0]))
            (latime, salvat, eager, recalculate) = masurate[-1]
            granite = _granite_1(_marimi_1(latime))
        return (
            f"Politica ta păstrează doar produsele de matrice, iar `bloc_cu_sac` o aplică în regiunea compilată, câte "
            f"o regiune pe bloc, fără recompilări la un pas nou. Pe stiva de lățime {latime}, graful compilat salvează "
            f"{format_octeti(salvat)}: {format_procent(salvat / max(eager, 1))} din ce salvează fără checkpointing "
            f"({format_octeti(eager)}, în modul eager), din care {format_octeti(granite)} sunt intrările blocurilor, tot ce "
            f"păstrează checkpointing-ul pe blocuri. Pasul înapoi reface "
            f"{mem12._lista_operatii(mem12._scumpe(recalculate))} (atenția) și operațiile element cu element, niciun "
            "produs de matrice."
        )

    return verificare("Exercițiul 1", corp, limita_s=_LIMITA_1_S)


def _masoara_1(bloc_cu_sac, marimi: mem12.Marimi, interzise, prima: bool = True, latime_trecuta: int = 0) -> tuple:
    """Compilează stiva de `marimi` cu `bloc_cu_sac` și judecă graful: regiunile `checkpoint`, ce salvează
    (doar ieșirile produselor de matrice și intrările blocurilor), ce reface (nimic scump în afară de atenție),
    fără recompilare la un pas nou. Întoarce (lățimea, octeții salvați, octeții eager, operațiile refăcute)."""
    eager = _eager_1(marimi)
    x, tinta = _intrari(marimi)
    model = _stiva(marimi, bloc_cu_sac)

    try:
        functie, partitie = _apeleaza(lambda: _partitie(model, x, tinta), ce=f"compilarea stivei de lățime "
                                      f"{marimi.dim_model} cu `bloc_cu_sac`", interzise=interzise, limita_s=LIMITA_COMPILARE_S)
    except GresealaCursant as greseala:
        eroare = getattr(greseala, "exceptie", None)
        text = f"{type(eroare).__name__}: {eroare}" if eroare is not None else str(greseala)
        if "NestedUserFunctionVariable" in text or "context_fn" in text:
            raise GresealaCursant(
                "Compilarea s-a oprit la `context_fn`: Dynamo acceptă ca `context_fn` o funcție definită în afara "
                "codului compilat sau un `functools.partial`, nu un `lambda` (sau o funcție) definit chiar în "
                "`bloc_cu_sac`. Scrie `context_fn=functools.partial(create_selective_checkpoint_contexts, "
                "politica_matmul)`." + _original(text)
            ) from None
        raise
    regiuni = partitie.checkpointuri()
    grafuri = len(partitie.grafuri_dynamo)
    if regiuni == 0:
        raise GresealaCursant(
            "Checkpointing-ul tău rulează în afara regiunii compilate: în grafurile lui Dynamo nu e nicio regiune "
            "`checkpoint` (operația `tag_activation_checkpoint`), deși, rulat fără compilare, blocul e pus într-un "
            "checkpoint. Așa se întâmplă cu o funcție scoasă din compilare (`torch.compiler.disable`) sau cu o "
            "întrerupere a grafului în ea: checkpoint-ul rulează eager, iar compilatorul nu-l vede, deci nici nu-l "
            "poate partiționa (cu o politică, compilarea nici nu se aplică regiunii). Tot așa se termină, în unele "
            "versiuni de PyTorch, un `context_fn` pe care Dynamo nu-l poate urmări (un `lambda` definit în funcție). "
            "Cheamă `checkpoint` direct în `bloc_cu_sac`, cu `context_fn=functools.partial(...)`, fără nimic care să-l "
            "scoată din graf."
        )
    if grafuri > 1 or not partitie.completa:
        raise GresealaCursant(
            f"Stiva compilată cu `bloc_cu_sac` se rupe în {cu_substantiv(max(grafuri, 1), 'graf', 'grafuri')}: ceva din "
            "funcția ta întrerupe graful (o funcție scoasă din compilare, un `print`, o conversie la un număr Python). "
            "Fiecare întrerupere taie pasul în bucăți pe care partiționatorul le vede separat; una chiar în regiunea "
            "`checkpoint` face ca Dynamo să ruleze toată funcția eager. Lasă în `bloc_cu_sac` doar apelul lui `checkpoint`."
        )
    if regiuni < marimi.nr_blocuri:
        raise GresealaCursant(
            f"În grafurile compilate sunt {cu_substantiv(regiuni, 'regiune', 'regiuni')} `checkpoint` pentru "
            f"{cu_substantiv(marimi.nr_blocuri, 'bloc', 'blocuri')}: `bloc_cu_sac` trebuie să pună fiecare bloc într-un "
            "checkpoint."
        )
    recalculate = partitie.recalculate()
    scumpe = mem12._scumpe(recalculate)
    matmul_refacute = Counter({n: c for n, c in scumpe.items() if n in mem12._NUME_MATMUL})
    salvate = partitie.salvate_pe_operatie()
    salvat = partitie.octeti_salvati
    if matmul_refacute:
        doar_granite = not any(op in mem12._NUME_MATMUL for op in salvate)
        if not prima:
            raise GresealaCursant(
                f"Pe stiva de lățime {latime_trecuta}, politica ta a păstrat produsele de matrice, dar pe cea de lățime "
                f"{marimi.dim_model} graful reface în pasul înapoi {mem12._lista_operatii(matmul_refacute)}: politica ta "
                "depinde de forme (citește `args`?) și e corectă doar pe unele mărimi. Decizia trebuie să depindă doar de "
                "operație, oricare ar fi lățimea modelului."
            )
        if doar_granite:
            raise GresealaCursant(
                f"Graful compilat reface în pasul înapoi {mem12._lista_operatii(matmul_refacute)} și nu salvează nicio ieșire "
                "de produs de matrice: `bloc_cu_sac` pune blocul într-un `checkpoint` fără politica ta, deci e "
                "checkpointing-ul complet. Dă-i lui `checkpoint` și `context_fn=functools.partial("
                "create_selective_checkpoint_contexts, politica_matmul)`."
            )
        raise GresealaCursant(
            f"Graful compilat reface în pasul înapoi {mem12._lista_operatii(matmul_refacute)}: politica ta răspunde altfel "
            "când primește argumentele adevărate ale operațiilor (depinde de `args`?). Decizia trebuie să depindă doar de operație."
        )
    if salvat >= 0.95 * eager:
        raise GresealaCursant(
            f"Cu politica ta, graful compilat salvează {format_octeti(salvat)}, cam cât stiva fără checkpointing "
            f"({format_octeti(eager)}): nicio schimbare de memorie. O politică care păstrează (aproape) tot nu câștigă "
            "nimic; păstrează doar produsele de matrice."
        )
    if mem12.OPERATII_ATENTIE and not any(n in mem12._NUME_ATENTIE for n in scumpe):
        raise GresealaCursant(
            f"Graful compilat nu reface atenția: salvează {format_octeti(salvat)}, deci păstrează și ieșirile atenției "
            "(SDPA). Exercițiul cere doar produsele de matrice."
        )
    altele = {op: o for op, o in salvate.items() if op not in mem12._NUME_MATMUL and op != "add"}
    granite = _granite_1(marimi)
    if altele or salvate.get("add", 0) != granite:
        if altele:
            descriere = ", ".join(f"`{op}` ({format_octeti(o)})" for op, o in sorted(altele.items(), key=lambda p: -p[1])[:4])
        else:
            descriere = f"`add` ({format_octeti(salvate.get('add', 0))}, iar intrările blocurilor au {format_octeti(granite)})"
        inceput = (f"Pe stiva de lățime {latime_trecuta} politica ta salvează exact ce trebuie, dar pe cea de lățime "
                   f"{marimi.dim_model}" if not prima else f"Pe stiva de lățime {marimi.dim_model}")
        raise GresealaCursant(
            f"{inceput}, graful compilat salvează, pe lângă ieșirile produselor de matrice și intrările blocurilor, și "
            f"{descriere}: politica ta păstrează și alte operații când primește argumentele lor adevărate (depinde de "
            "`args` sau de forme?). Decizia trebuie să depindă doar de operație."
        )
    _fara_recompilare_1(functie, marimi, interzise)
    return marimi.dim_model, salvat, eager, recalculate


def _original(text: str) -> str:
    from .baza import cu_originalul

    return cu_originalul(text)


def _fara_recompilare_1(functie, marimi: mem12.Marimi, interzise) -> None:
    """Al doilea pas, cu alte valori de aceeași formă, fără recompilare."""
    x, tinta = _intrari(marimi, seminta=1)

    def al_doilea_pas():
        with torch.compiler.set_stance("fail_on_recompile"):
            mem12.un_pas(functie, x, tinta)

    try:
        _apeleaza(al_doilea_pas, ce="al doilea pas", interzise=interzise, limita_s=LIMITA_COMPILARE_S)
    except GresealaCursant as greseala:
        eroare = getattr(greseala, "exceptie", None)
        if eroare is not None and "fail_on_recompile" in str(eroare):
            raise GresealaCursant(
                "La al doilea pas (alte valori, aceeași formă), stiva cu `bloc_cu_sac` s-a recompilat: Dynamo a pus o gardă "
                "pe un obiect nou la fiecare apel (o politică sau un `context_fn` construit din nou, cu date care se "
                "schimbă). Un pas de antrenare care se recompilează la fiecare apel nu se mai termină. Construiește politica "
                "o dată, în afara funcției, și dă-i lui `checkpoint` un `functools.partial` al ei."
            ) from None
        raise


# ---------------------------------------------------------------------------------------------
# Exercițiul 2: bugetul care încape și recalculează cel mai puțin
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Masura:
    """Ce dă `masoara(buget)` în exercițiul 2, pentru pasul de antrenare al stivei, la lotul verificării:
    octeții salvați pentru pasul înapoi, vârful pasului (peste ponderi și AdamW), memoria totală (ponderile,
    AdamW și vârful: ce se compară cu plafonul), FLOP-urile produselor de matrice și ale atenției refăcute în
    pasul înapoi (costul recalculării) și operațiile refăcute."""

    buget: float
    octeti_salvati: int
    varf_octeti: int
    octeti_total: int
    flops_recalculate: float
    recalculate: tuple

    def __str__(self) -> str:
        return (f"bugetul {format_numar(self.buget, 1)}: total {format_octeti(self.octeti_total)} (salvat "
                f"{format_octeti(self.octeti_salvati)}), {format_numar(self.flops_recalculate)} FLOP recalculate "
                f"({mem12._lista_operatii(Counter(self.recalculate)) if self.recalculate else 'doar operații ieftine'})")


class _StivaMLP(nn.Module):
    """Modelul exercițiului 2: două blocuri `BlocMLP` (LayerNorm, GELU cu tanh), unul după altul."""

    def __init__(self, latime: int):
        super().__init__()
        self.blocuri = nn.ModuleList(mem12.BlocMLP(latime, "gelu_tanh", True) for _ in range(2))

    def forward(self, x):
        for bloc in self.blocuri:
            x = bloc(x)
        return x


#: Mărimile exercițiului 2 (lățimea, lotul, lungimea): fixe, ca tabelul să se măsoare o singură dată pe proces;
#: întâmplarea alege marginile plafoanelor.
MARIMI_2 = (32, 8, 32)


def _tabel_2() -> dict[float, Masura]:
    """Pentru fiecare buget din `mem12.BUGETE`: modelul exercițiului compilat cu el, pasul de antrenare
    măsurat (păstrat între verificări)."""
    cheie = ("2", MARIMI_2)
    if cheie in _CIFRE:
        return _CIFRE[cheie]
    from ..modele import optimizator_pentru

    latime, lot, lungime = MARIMI_2
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(0)
        stiva = _clasa_proaspata(_StivaMLP)(latime)
    optimizator = optimizator_pentru(stiva)
    fix = 3 * sum(p.numel() * p.element_size() for p in stiva.parameters())
    generator = torch.Generator().manual_seed(0)
    x, tinta = (torch.randn(lot, lungime, latime, generator=generator) for _ in range(2))
    tabel = {}
    for buget in mem12.BUGETE:
        functie, partitie = _partitie(stiva, x, tinta, buget)
        optimizator.step()
        optimizator.zero_grad(set_to_none=True)

        def pas():
            valoare = mem12.pierdere(functie, x, tinta)
            valoare.backward()
            optimizator.step()

        varf = mem12.varf_pas(pas, "cpu")
        optimizator.zero_grad(set_to_none=True)
        tabel[buget] = Masura(buget, partitie.octeti_salvati, varf, fix + varf, partitie.flops_recalculate(),
                              tuple(sorted(mem12._scumpe(partitie.recalculate()).elements())))
    _CIFRE[cheie] = tabel
    return tabel


def _cazuri_2(tabel: dict[float, Masura], rng) -> list[tuple[str, int]]:
    """Plafoanele verificării, toate în fiecare rulare: unul sub care încape orice buget, unul sub care
    încape doar bugetul cu memoria cea mai mică, unul la mijloc (dacă tabelul are unul care schimbă
    răspunsul) și unul sub care nu încape niciunul. Întâmplarea alege doar marginea fiecăruia."""
    totaluri = sorted({m.octeti_total for m in tabel.values()})
    cel_mai_mic, cel_mai_mare = totaluri[0], totaluri[-1]
    cazuri = [("toate încap", cel_mai_mare + rng.randrange(0, 4096)),
              ("încape doar bugetul cu memoria cea mai mică", cel_mai_mic + rng.randrange(0, max(1, (totaluri[1] - cel_mai_mic)
                                                                                             if len(totaluri) > 1 else 1)))]
    candidati = []
    for prag in totaluri[1:-1]:
        incap = [b for b, m in tabel.items() if m.octeti_total <= prag]
        raspuns = _raspunsuri(tabel, prag)
        if 1.0 not in incap and raspuns and min(tabel[b].octeti_total for b in raspuns) > cel_mai_mic:
            candidati.append(prag)
    if candidati:
        cazuri.append(("la mijloc", rng.choice(candidati)))
    cazuri.append(("nu încape niciunul", cel_mai_mic - 1 - rng.randrange(0, 1024)))
    return cazuri


def _raspunsuri(tabel: dict[float, Masura], plafon: float) -> set:
    """Bugetele corecte pentru `plafon`: cele care încap și au cele mai puține FLOP recalculate."""
    incap = [b for b, m in tabel.items() if m.octeti_total <= plafon]
    if not incap:
        return set()
    minim = min(tabel[b].flops_recalculate for b in incap)
    return {b for b in incap if tabel[b].flops_recalculate <= minim}


def _interzise_2() -> dict:
    return {mem12.alege_bugetul: "mem12.alege_bugetul", mem12.cel_mai_rapid_care_incape: "mem12.cel_mai_rapid_care_incape"}


def exercitiul_2(alege_bugetul) -> Rezultat:
    """Verifică `alege_bugetul(masoara, plafon, bugete)`: pentru fiecare plafon (octeți, memoria totală a
    pasului), bugetul întors trebuie să fie din `bugete`, să încapă (`masoara(buget).octeti_total <= plafon`)
    și să aibă cele mai puține FLOP recalculate dintre cele care încap; None, dacă nu încape niciunul."""

    def corp():
        cere_functie(alege_bugetul, "alege_bugetul(masoara, plafon, bugete)", 3, "alege_bugetul")
        _proba_2(alege_bugetul)
        rng = generator_aleator()
        with _mediu_verificare():
            tabel = _tabel_2()
        bugete = list(mem12.BUGETE)
        cerute: list = []

        def masoara(buget):
            try:
                valoare = float(buget)
            except (TypeError, ValueError):
                raise ValueError(f"masoara primește un buget (un număr din `bugete`), nu {type(buget).__name__}") from None
            potrivit = next((b for b in bugete if math.isclose(b, valoare, abs_tol=1e-9)), None)
            if potrivit is None:
                raise ValueError(f"bugetul {valoare} nu e în lista `bugete` ({', '.join(format_numar(b, 1) for b in bugete)})")
            cerute.append(potrivit)
            return tabel[potrivit]

        interzise = _interzise_2()
        for descriere, plafon in _cazuri_2(tabel, rng):
            cerute.clear()
            ales = _apeleaza(alege_bugetul, masoara, plafon, list(bugete), ce="funcția ta `alege_bugetul`", interzise=interzise)
            _judeca_2(ales, plafon, tabel, bugete, descriere, cerute)
        ordonate = [tabel[b].octeti_total for b in sorted(tabel, reverse=True)]
        urcari = [f"{format_numar(a, 1)} → {format_numar(b, 1)}" for (a, b), (ta, tb) in
                  zip(zip(sorted(tabel, reverse=True), sorted(tabel, reverse=True)[1:]), zip(ordonate, ordonate[1:])) if tb > ta]
        monotonie = (f" Aici memoria totală nu scade la fiecare buget mai mic (crește la {', '.join(urcari)}): de aceea le "
                     "verifici pe toate, nu te oprești la primul care încape de sus în jos sau de jos în sus." if urcari else "")
        return (
            f"Alegerea ta e corectă pe {cu_substantiv(len(_cazuri_2(tabel, rng)), 'plafon', 'plafoane')}: întâi ce încape "
            "(memoria totală a pasului, nu doar ce se salvează), apoi, dintre acestea, bugetul care reface cel mai puțin; "
            f"când nu încape niciunul, None.{monotonie}"
        )

    return verificare("Exercițiul 2", corp, limita_s=_LIMITA_2_S)


def _proba_2(alege_bugetul) -> None:
    """Un prim apel, pe două bugete inventate, înainte de orice măsurătoare: o funcție încă nescrisă (sau care
    se oprește cu o eroare) e spusă imediat, fără să aștepte compilările verificării."""
    tabel = {1.0: Masura(1.0, 100, 100, 200, 0.0, ()), 0.0: Masura(0.0, 0, 50, 150, 1e6, ("addmm",))}
    _apeleaza(alege_bugetul, lambda b: tabel[1.0 if float(b) > 0.5 else 0.0], 1000, [1.0, 0.0],
              ce="funcția ta `alege_bugetul`", interzise=_interzise_2())


def _judeca_2(ales, plafon: int, tabel: dict, bugete: list, descriere: str, cerute: list) -> None:
    corecte = _raspunsuri(tabel, plafon)
    caz = f"cu plafonul de {format_octeti(plafon)} ({descriere})"
    if ales is None:
        if not corecte:
            return
        raise GresealaCursant(
            f"Ai întors None {caz}, dar încap bugete: {', '.join(format_numar(b, 1) for b in sorted(corecte, reverse=True))} "
            f"(de exemplu, bugetul {format_numar(max(corecte), 1)}: {format_octeti(tabel[max(corecte)].octeti_total)}). "
            "Compară `masoara(buget).octeti_total` cu plafonul pentru fiecare buget."
        )
    if isinstance(ales, bool) or not isinstance(ales, (int, float)):
        raise GresealaCursant(f"Trebuia un buget (un număr din `bugete`) sau None, dar am primit {type(ales).__name__} {caz}.")
    potrivit = next((b for b in bugete if math.isclose(b, float(ales), abs_tol=1e-9)), None)
    if potrivit is None:
        raise GresealaCursant(
            f"Ai întors bugetul {format_numar(float(ales))} {caz}, care nu e în lista `bugete` "
            f"({', '.join(format_numar(b, 1) for b in bugete)}): verificarea a măsurat doar bugetele din listă."
        )
    masura = tabel[potrivit]
    if not corecte:
        raise GresealaCursant(
            f"Ai întors bugetul {format_numar(potrivit, 1)} {caz}, dar nu încape niciun buget: cel mai mic total e "
            f"{format_octeti(min(m.octeti_total for m in tabel.values()))}. Când nu încape nimic, întoarce None."
        )
    if masura.octeti_total > plafon:
        salvat_incape = masura.octeti_salvati <= plafon
        motiv = (" Ai comparat cu plafonul doar octeții salvați? Plafonul e pentru tot pasul: ponderile, stările "
                 "lui AdamW și vârful pasului, adică `octeti_total`." if salvat_incape else "")
        raise GresealaCursant(
            f"Bugetul {format_numar(potrivit, 1)} nu încape {caz}: pasul are nevoie de {format_octeti(masura.octeti_total)}, "
            f"cu {format_octeti(masura.octeti_total - plafon)} peste plafon.{motiv}"
        )
    if potrivit not in corecte:
        bun = max(corecte)
        minim_memorie = min(tabel, key=lambda b: tabel[b].octeti_total)
        motiv = (" L-ai ales pe cel cu memoria cea mai mică: încape, dar nu e cel mai rapid." if potrivit == minim_memorie
                 else "")
        raise GresealaCursant(
            f"Bugetul {format_numar(potrivit, 1)} încape {caz}, dar reface {format_numar(masura.flops_recalculate)} FLOP "
            f"({mem12._lista_operatii(Counter(masura.recalculate)) if masura.recalculate else 'doar operații ieftine'}), iar "
            f"bugetul {format_numar(bun, 1)} încape și el și "
            f"reface doar {format_numar(tabel[bun].flops_recalculate)}.{motiv} Dintre bugetele care încap, alege-l pe cel "
            "care reface cel mai puțin."
        )


# ---------------------------------------------------------------------------------------------
# Exercițiul 3: ce recalculează partiționatorul
# ---------------------------------------------------------------------------------------------

#: Operațiile care nu se numără: vederile (nu costă nimic) și alegerea unei ieșiri dintr-un tuplu.
_VEDERI = {"view", "_unsafe_view", "permute", "t", "transpose", "expand", "reshape", "squeeze", "unsqueeze", "alias",
           "slice", "select", "split", "getitem", "detach", "clone"}


def _normalizeaza(nume) -> str:
    if isinstance(nume, (torch._ops.OpOverload, torch._ops.OpOverloadPacket)):
        return mem12.nume_operatie(nume)
    text = str(nume).strip().lower()
    for prefix in ("torch.ops.aten.", "aten::", "aten.", "torch."):
        if text.startswith(prefix):
            text = text[len(prefix):]
    for sufix in (".default", ".tensor", ".scalar", ".correction"):
        if text.endswith(sufix):
            text = text[: -len(sufix)]
    return text


def _adevarul_3(activare: str, cu_norma: bool, latime: int) -> frozenset:
    cheie = ("3", activare, cu_norma, latime)
    if cheie not in _CIFRE:
        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(0)
            bloc = _clasa_proaspata(_BlocMLPVerificare)(latime, activare, cu_norma)
        generator = torch.Generator().manual_seed(0)
        x = torch.randn(2, 6, latime, generator=generator)
        _, partitie = _partitie(bloc, x, torch.randn(2, 6, latime, generator=generator))
        _CIFRE[cheie] = frozenset(n for n in partitie.recalculate() if n not in _VEDERI)
    return _CIFRE[cheie]


#: De ce nu se recalculează o operație (pentru mesaje), după nume.
_DE_CE_NU = {
    "addmm": "un produs de matrice nu se recalculează cu bugetul implicit: nu e pe lista operațiilor ieftine ale "
             "partiționatorului; ieșirea lui se salvează",
    "mm": "un produs de matrice nu se recalculează cu bugetul implicit: nu e pe lista operațiilor ieftine ale partiționatorului",
    "bmm": "un produs de matrice nu se recalculează cu bugetul implicit: nu e pe lista operațiilor ieftine ale partiționatorului",
    "var_mean": "o reducere nu se recalculează: rezultatul ei e mic (un număr pe rând), iar refăcută ar citi din nou tot tensorul",
    "rsqrt": "`rsqrt` se aplică statisticilor normalizării, un număr pe rând: rezultatul e mic și se salvează",
    "native_layer_norm": "normalizarea e descompusă (var_mean, sub, mul…): numără operațiile din descompunere, nu pe ea",
    "layer_norm": "normalizarea e descompusă (var_mean, sub, mul…): numără operațiile din descompunere, nu pe ea",
}


def _explica_3(activare: str, cu_norma: bool, lipsa: set, in_plus: set) -> str:
    parti = []
    for nume in sorted(in_plus):
        if nume in _DE_CE_NU:
            parti.append(f"`{nume}`: {_DE_CE_NU[nume]}")
        elif nume in ("sigmoid", "tanh") and activare in ("sigmoid", "tanh"):
            parti.append(f"`{nume}`: derivata lui {activare} se scrie din ieșirea lui, care se salvează oricum (o folosește "
                         "produsul de matrice de după), deci nu e nimic de refăcut")
        elif nume in ("relu", "le", "gt", "where", "threshold_backward") and activare == "relu":
            parti.append(f"`{nume}`: pentru ReLU se salvează o mască (unde intrarea e pozitivă), nu se reface nimic")
        else:
            parti.append(f"`{nume}` nu se reface pentru acest bloc")
    for nume in sorted(lipsa):
        if nume in ("sub",) or (cu_norma and nume == "mul" and activare not in ("gelu", "gelu_tanh")):
            parti.append(f"lipsește `{nume}`: normalizarea x̂ = (x − media) · rstd se reface în pasul înapoi din x, media și "
                         "rstd (salvate, mici), în loc să salveze x̂ întreg")
        elif activare in ("gelu", "gelu_tanh"):
            fel = "erf" if activare == "gelu" else "tanh"
            parti.append(f"lipsește `{nume}`: derivata lui GELU are nevoie de {fel}(…) din pasul înainte; partiționatorul "
                         f"îl reface din ieșirea lui `addmm` (salvată), cu lanțul lui de operații element cu element")
        else:
            parti.append(f"lipsește `{nume}`")
    return "; ".join(parti)


def _interzise_3() -> dict:
    return {mem12.Partitie.recalculate: "Partitie.recalculate", mem12.Partitie._recalculate_noduri: "Partitie.recalculate",
            mem12.Compilator.__call__: "mem12.Compilator", mem12.compileaza: "mem12.compileaza"}


def exercitiul_3(prezice_recalcularile) -> Rezultat:
    """Verifică `prezice_recalcularile(activare, cu_norma)` pe toate cele `COMBINATII_3` combinații (cinci activări, cu și
    fără `LayerNorm`): mulțimea întoarsă (nume de operații aten, fără vederi) trebuie să fie exact mulțimea
    operațiilor pasului înainte pe care graful înapoi le reface, cu bugetul implicit, pentru `BlocMLP`."""

    def corp():
        cere_functie(prezice_recalcularile, "prezice_recalcularile(activare, cu_norma)", 2, "prezice_recalcularile")
        rng = generator_aleator()
        latime = rng.choice(LATIMI_3)
        interzise = _interzise_3()
        gresite = []
        with _mediu_verificare():
            for activare in ACTIVARI_3:
                for cu_norma in (False, True):
                    raspuns = _apeleaza(prezice_recalcularile, activare, cu_norma, interzise=interzise,
                                        ce=f"funcția ta pentru activarea „{activare}”" + (", cu normalizare" if cu_norma else ""))
                    prezis = _multime(raspuns, activare, cu_norma)
                    adevar = _adevarul_3(activare, cu_norma, latime)
                    if prezis != adevar:
                        gresite.append((activare, cu_norma, prezis, adevar))
        if gresite:
            activare, cu_norma, prezis, adevar = gresite[0]
            caz = f"„{activare}”" + (" cu LayerNorm" if cu_norma else " fără normalizare")
            lipsa, in_plus = adevar - prezis, prezis - adevar
            spus = ", ".join(sorted(prezis)) or "nimic"
            corect = (f"{len(gresite)} din {COMBINATII_3} combinații" if len(gresite) > 1
                      else f"o combinație din {COMBINATII_3}")
            raise GresealaCursant(
                f"Predicția ta greșește la {corect}. Prima: {caz}, ai spus {{{spus}}}. {_explica_3(activare, cu_norma, lipsa, in_plus)}."
            )
        return (
            f"Toate cele {COMBINATII_3} predicții sunt exacte: partiționatorul reface în pasul înapoi doar operații element "
            "cu element ieftine (lanțul lui GELU până la tanh sau erf, scăderea și înmulțirea normalizării), niciodată produsele "
            "de matrice sau reducerile, și nimic unde derivata se scrie din ieșirea deja salvată (ReLU, sigmoid, tanh)."
        )

    return verificare("Exercițiul 3", corp, limita_s=_LIMITA_3_S)


def _multime(raspuns, activare: str, cu_norma: bool) -> frozenset:
    caz = f"„{activare}”" + (" cu LayerNorm" if cu_norma else "")
    if raspuns is None:
        raise GresealaCursant(f"Pentru {caz} ai întors None: ai uitat `return`? Trebuia o mulțime de nume de operații "
                              "(`set()`, dacă nu se reface nimic).")
    if isinstance(raspuns, str):
        raise GresealaCursant(f"Pentru {caz} ai întors un șir de caractere („{raspuns}”), nu o mulțime: scrie "
                              f"{{'{raspuns}'}} sau set() dacă nu se reface nimic.")
    if isinstance(raspuns, dict) or not hasattr(raspuns, "__iter__"):
        raise GresealaCursant(f"Pentru {caz} trebuia o mulțime de nume de operații, dar am primit {type(raspuns).__name__}.")
    nume = {_normalizeaza(n) for n in raspuns}
    return frozenset(n for n in nume if n not in _VEDERI)
