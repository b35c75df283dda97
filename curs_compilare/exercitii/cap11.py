"""Verificările exercițiilor din capitolul 11 — generarea textului: cache-ul KV static, greutăți int8,
plafonul lățimii de bandă.

- exercițiul 1: `actualizeaza_cache(cache_k, cache_v, k, v, pozitii)` scrie, pe loc, cheile și valorile
  noi (lot × capete × n × d) în cache-urile statice (lot × capete × L × d), la pozițiile `pozitii` (un
  tensor de n întregi consecutivi: toate pozițiile promptului la umplere, una singură la decodare), și
  întoarce masca atenției, de forma n × L (sau care se extinde la lot × capete × n × L): poziția nouă
  p vede pozițiile 0…p, iar restul cache-ului (nescris, sau rămas de la o generare de dinainte) e mascat;
- exercițiul 2: `LiniarInt8(liniar)` construiește, dintr-un `nn.Linear`, un strat cu greutatea în int8
  (un octet pe element) și o scală pe fiecare canal de ieșire (fiecare rând); `strat(x)` dă aproape ce
  dă `liniar(x)`, în tipul de date al lui `x`;
- exercițiul 3: `plafon_jetoane_pe_secunda(octeti_greutati, octeti_kv_pe_pozitie, pozitie, lot, gbps)`
  întoarce plafonul în jetoane pe secundă al unui pas de decodare, iar `predictii` spune în ce parte
  mută plafonul patru schimbări.

Fiecare verificare alege la întâmplare mărimile (altele la fiecare rulare; `CURS_SEMINTA=…` în mediu le
fixează), dar cazurile care decid verdictul sunt în fiecare rulare: la exercițiul 1, o umplere de mai
multe poziții, un prompt de un singur jeton, două lungimi diferite ale cache-ului, un lot de două
secvențe, poziția ultimului loc din cache și valori vechi în pozițiile nescrise; la exercițiul 2, un
număr de intrări care nu e multiplu de 8, rânduri de mărimi foarte diferite, un rând numai cu zerouri,
un strat fără bias și unul în bfloat16; la exercițiul 3, poziția 0, lotul 1, un lot mare, un cache gol și
un cache care domină octeții. Verificarea nu ține nicio funcție de referință pe care codul tău s-o
poată chema: compară cu modelul cursului rulat pe tot prefixul, cu greutatea inițială și cu formula
scrisă direct în verificare. Codul tău se apelează numai prin `apeleaza` (din `baza`), cu o limită de
timp; o greșeală devine o explicație în română, nu un traceback.
"""

from __future__ import annotations

import contextlib
import math
import re
import unicodedata

import torch
import torch.nn.functional as F
from torch import nn

from ..capitole import cap11_generare as _gen11
from ..cifre import cu_substantiv, format_numar, format_octeti
from ..modele import ConfiguratieTransformer, ReteaTransformer
from .baza import (
    cere_functie,
    functie_noua,
    GresealaCursant,
    Rezultat,
    apeleaza,
    cere_numar,
    configuratia_compilatorului,
    configuratie_dynamo_implicita,
    cu_originalul,
    fara_jurnale_torch,
    generator_aleator,
    linia_cursantului,
    numar_precis,
    schimbari_configuratie,
    traduce_exceptie,
    verificare,
)

__all__ = [
    "exercitiul_1",
    "exercitiul_2",
    "exercitiul_3",
    "SCHIMBARI",
    "RASPUNSURI_POSIBILE",
    "SCENARIU",
    "LIMITA_APEL_S",
]

#: Cât are voie să dureze un apel al codului tău.
LIMITA_APEL_S = 30.0
#: Cât are voie să dureze compilarea unui pas de decodare cu funcția ta (backend-ul „eager”: doar Dynamo).
LIMITA_COMPILARE_S = 120.0
_LIMITA_1_S = 300.0
_LIMITA_2_S = 120.0
_LIMITA_3_S = 60.0

#: Funcțiile capitolului care dau chiar răspunsul unui exercițiu: codul tău nu le poate chema.
_INTERZISE_1 = {_gen11.scrie_in_cache: "curs_compilare.capitole.cap11_generare.scrie_in_cache"}
_INTERZISE_2 = {
    _gen11.cuantizeaza_greutatea: "curs_compilare.capitole.cap11_generare.cuantizeaza_greutatea",
    _gen11.LiniarInt8.__init__: "curs_compilare.capitole.cap11_generare.LiniarInt8",
    _gen11.LiniarInt8.forward: "curs_compilare.capitole.cap11_generare.LiniarInt8",
    _gen11.cuantizeaza_modelul: "curs_compilare.capitole.cap11_generare.cuantizeaza_modelul",
}
_INTERZISE_3 = {_gen11.plafon_jetoane: "curs_compilare.capitole.cap11_generare.plafon_jetoane"}


def _pune_configuratia(inainte: dict, schimbate: list[str]) -> None:
    import importlib
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for nume in schimbate:
            modul, _, cheie = nume.rpartition(".")
            with contextlib.suppress(Exception):
                setattr(importlib.import_module(modul), cheie, inainte[modul][cheie])


@contextlib.contextmanager
def _fara_schimbari_de_configuratie(ce: str):
    """Codul tău nu are voie să schimbe configurația globală a compilatorului (ar rămâne în tot notebook-ul):
    o schimbare e pusă la loc și respinsă."""
    inainte = configuratia_compilatorului()
    try:
        yield
    finally:
        schimbate = schimbari_configuratie(inainte)
        if schimbate:
            _pune_configuratia(inainte, schimbate)
    if schimbate:
        raise GresealaCursant(
            f"{ce[0].upper()}{ce[1:]} schimbă configurația globală a compilatorului "
            f"({', '.join(f'`{n}`' for n in schimbate[:3])}). Schimbarea ar rămâne în tot notebook-ul, după funcția ta, "
            "și ar ascunde ce face compilarea. Am pus configurația la loc; scoate schimbarea din funcție."
        )


# ---------------------------------------------------------------------------------------------
# Exercițiul 1: cache-ul static, scrierea și masca
# ---------------------------------------------------------------------------------------------


class _CautaCat(torch.overrides.TorchFunctionMode):
    """Ține minte dacă, cât e activ, s-a lipit un cache cu `torch.cat` (sau `torch.concat`, `torch.hstack`…)
    ori i s-a schimbat mărimea pe loc (`resize_`, `set_`)."""

    _LIPIRI = {torch.cat, torch.concat, torch.concatenate, torch.stack, torch.hstack, torch.dstack}

    def __init__(self, cache: tuple):
        super().__init__()
        self.cache = {id(t) for t in cache}
        self.lipit = False
        self.redimensionat = False

    def __torch_function__(self, func, types_, args=(), kwargs=None):
        kwargs = kwargs or {}
        if func in self._LIPIRI:
            secventa = args[0] if args else kwargs.get("tensors", ())
            if any(id(t) in self.cache for t in secventa if isinstance(t, torch.Tensor)):
                self.lipit = True
        nume = getattr(func, "__name__", "")
        if nume in ("resize_", "set_", "resize_as_") and args and id(args[0]) in self.cache:
            self.redimensionat = True
        return func(*args, **kwargs)


def _vizibile(masca: torch.Tensor, forma: tuple, context: str) -> torch.Tensor:
    """Ce poziții vede fiecare jeton nou, după masca întoarsă: un tensor bool de forma (lot, capete, n, L).
    Masca bool: True = se vede; masca float se adună la scoruri: 0 se vede, −∞ nu."""
    lot, capete, n, lungime = forma
    if masca is None:
        raise GresealaCursant(f"Funcția ta a întors None {context}: ai uitat să întorci masca (`return masca`)?")
    if not isinstance(masca, torch.Tensor):
        raise GresealaCursant(f"Funcția ta a întors {type(masca).__name__} {context}, nu un tensor: trebuia masca atenției, "
                              "un tensor bool (True = poziția se vede).")
    if masca.dim() == 0 or masca.shape[-1] != lungime:
        coloane = masca.shape[-1] if masca.dim() else 1
        raise GresealaCursant(
            f"Masca ta are {cu_substantiv(coloane, 'coloană', 'coloane')}, dar cache-ul are "
            f"{cu_substantiv(lungime, 'poziție', 'poziții')}, {context}: masca are câte o coloană pentru fiecare poziție din cache. O "
            "lungime scrisă de mână (cea din exemplu) merge doar la o singură mărime a cache-ului; ia-o din cache, "
            "`cache_k.shape[2]`."
        )
    try:
        extinsa = torch.broadcast_shapes(tuple(masca.shape), forma)
    except RuntimeError:
        extinsa = None
    if extinsa != forma:
        randuri = masca.shape[-2] if masca.dim() >= 2 else 1
        raise GresealaCursant(
            f"Masca ta are forma {tuple(masca.shape)} {context}, care nu se extinde la forma scorurilor, {forma} (lot, capete, "
            f"jetoane noi, poziții). Cu {cu_substantiv(n, 'jeton nou', 'jetoane noi')}, masca are câte un rând pe jeton nou "
            f"(aici are {cu_substantiv(randuri, 'rând', 'rânduri')}): `torch.arange(L)[None, :] <= pozitii[:, None]` dă n × L."
        )
    if masca.dtype == torch.bool:
        return masca.expand(forma).cpu()
    if not masca.is_floating_point():
        raise GresealaCursant(f"Masca ta e de tip {masca.dtype} {context}: SDPA primește o mască bool (True = poziția se vede) "
                              "sau una float, adunată la scoruri. Întoarce comparația însăși, de tip bool.")
    # o mască float se adună la scoruri: 0 lasă poziția, −∞ o ascunde; orice altă valoare doar schimbă scorul
    valori = masca.detach().float().cpu()
    if bool(((valori == 0) | (valori == float("-inf"))).all()):
        return (valori == 0).expand(forma)
    if bool(((valori == 0) | (valori == 1)).all()):
        raise GresealaCursant(
            f"Masca ta e de tip {masca.dtype}, cu 0 și 1 {context}: SDPA adună o mască float la scoruri, deci un 1 doar "
            "mărește scorul, iar pozițiile cu 0 nu sunt mascate deloc. Întoarce o mască bool (comparația însăși, fără "
            "`.float()`): True = poziția se vede."
        )
    raise GresealaCursant(
        f"Masca ta e float {context}, cu valori finite diferite de 0: SDPA o adună la scoruri, deci pozițiile nu sunt "
        "mascate, ci doar scorurile lor se schimbă. Întoarce o mască bool (True = poziția se vede)."
    )


def _descrie_pozitiile(pozitii: list[int]) -> str:
    if len(pozitii) == 1:
        return f"poziția {pozitii[0]}"
    return f"pozițiile {pozitii[0]}…{pozitii[-1]}"


def _verifica_scrierea(nume: str, cache: torch.Tensor, inainte: torch.Tensor, nou: torch.Tensor, pozitii: list[int],
                       cautare: _CautaCat, context: str, celalalt: torch.Tensor | None = None) -> None:
    """Cache-ul (`cache_k` sau `cache_v`) trebuie să aibă la `pozitii` valorile noi, iar în rest valorile de dinainte.
    `celalalt` e tensorul nou al celuilalt cache (valorile pentru `cache_k`, cheile pentru `cache_v`)."""
    asteptat = inainte.clone()
    asteptat[:, :, pozitii] = nou.to(asteptat.dtype)
    if torch.equal(cache, asteptat):
        return
    neschimbat = torch.equal(cache, inainte)
    if neschimbat:
        if cautare.lipit:
            raise GresealaCursant(
                f"`{nume}` a rămas neschimbat {context}: ai lipit valorile noi cu `torch.cat`, care face un tensor nou, mai lung. "
                "Cache-ul primit nu se schimbă, iar un cache care crește are altă formă la fiecare pas: o recompilare pentru "
                f"fiecare jeton (secțiunea 2). Scrie pe loc în cache-ul prealocat: `{nume}.index_copy_(2, pozitii, …)`."
            )
        raise GresealaCursant(
            f"`{nume}` a rămas neschimbat {context}: n-ai scris nimic în el. Cache-ul e prealocat; scrie pe loc, la pozițiile "
            f"primite: `{nume}.index_copy_(2, pozitii, …)` (sau `{nume}[:, :, pozitii] = …`). Un tensor nou, atribuit unei "
            "variabile locale, nu schimbă cache-ul primit."
        )
    diferente = (cache != asteptat).any(dim=-1).any(dim=0).any(dim=0).nonzero().flatten().tolist()
    scrise = [p for p in diferente if p not in pozitii]
    if scrise:
        raise GresealaCursant(
            f"Ai scris în `{nume}` și la {_descrie_pozitiile(scrise)} {context}, deși jetoanele noi sunt la "
            f"{_descrie_pozitiile(pozitii)}: scrie doar la pozițiile primite, `pozitii`, nu la unele calculate altfel (un număr "
            "scris de mână, lungimea exemplului). Restul cache-ului rămâne cum era."
        )
    inversate = celalalt is not None and torch.equal(cache[:, :, pozitii], celalalt.to(cache.dtype))
    raise GresealaCursant(
        f"La {_descrie_pozitiile(pozitii)}, `{nume}` nu conține valorile noi {context}: "
        + ("ai scris cheile și valorile inversate (`v` în `cache_k`, `k` în `cache_v`). " if inversate else "")
        + "Scrie exact tensorul primit pentru fiecare cache (`k` în `cache_k`, `v` în `cache_v`), pe dimensiunea pozițiilor (2), "
        "pentru toate secvențele lotului."
    )


def _verifica_masca(vizibile: torch.Tensor, pozitii: list[int], lungime: int, context: str) -> None:
    """Fiecare jeton nou, la poziția p, vede exact pozițiile 0…p."""
    asteptat = torch.arange(lungime)[None, :] <= torch.tensor(pozitii)[:, None]
    primul = vizibile[0, 0]
    if not bool((vizibile == primul).all()):
        raise GresealaCursant(f"Masca ta diferă de la o secvență din lot (sau de la un cap) la alta {context}: pozițiile vizibile "
                              "țin doar de poziții, aceleași pentru tot lotul.")
    if torch.equal(primul, asteptat):
        return
    n = len(pozitii)
    if bool(primul.all()):
        raise GresealaCursant(
            f"Masca ta lasă totul vizibil, {context}: pozițiile încă nescrise nu sunt mascate. În cache-ul static rămân valori "
            "de la generarea de dinainte (sau zerouri), iar atenția le-ar amesteca în rezultat. Masca: poziția nouă p vede "
            "0…p, `torch.arange(L)[None, :] <= pozitii[:, None]`."
        )
    if torch.equal(primul, torch.arange(lungime)[None, :] < torch.tensor(pozitii)[:, None]):
        raise GresealaCursant(
            f"Cu masca ta, jetonul nou nu se vede pe el însuși (`<` în loc de `<=`), {context}: la prima poziție n-ar vedea nimic, "
            "iar softmax-ul unui rând gol dă NaN. Poziția p vede 0…p, inclusiv p."
        )
    if n > 1 and all(torch.equal(primul[i], primul[0]) for i in range(n)) and not torch.equal(primul[0], asteptat[-1]):
        raise GresealaCursant(
            f"Masca ta dă același rând pentru toate cele {cu_substantiv(n, 'jeton nou', 'jetoane noi')}, {context}: fiecare jeton nou "
            "are rândul lui, după poziția lui. Calculează rândurile din tensorul `pozitii`, nu dintr-o poziție scrisă de mână: "
            "`torch.arange(L)[None, :] <= pozitii[:, None]`."
        )
    if n > 1 and all(torch.equal(primul[i], asteptat[-1]) for i in range(n)):
        raise GresealaCursant(
            f"Masca ta lasă fiecare jeton al promptului să vadă tot promptul, și jetoanele de după el, {context}: masca e cauzală "
            "și în interiorul promptului. Câte un rând pe jeton nou, fiecare cu poziția lui: "
            "`torch.arange(L)[None, :] <= pozitii[:, None]`, nu doar ultima poziție."
        )
    rand, coloana = (int(i) for i in (primul != asteptat).nonzero()[0])
    p = pozitii[rand]
    ce = "vede" if bool(primul[rand, coloana]) else "nu vede"
    trebuie = "n-ar trebui" if bool(primul[rand, coloana]) else "ar trebui"
    raise GresealaCursant(
        f"Masca ta greșește {context}: jetonul nou de la poziția {p} {ce} poziția {coloana}, dar {trebuie} s-o vadă. Poziția p "
        "vede exact pozițiile 0…p, calculate din tensorul `pozitii`, nu dintr-o lungime sau o poziție scrisă de mână."
    )


def _apeleaza_1(functie, cache_k, cache_v, k, v, pozitii, context: str):
    """Funcția cursantului, eager, cu o limită de timp, urmărind `torch.cat` pe cache; apoi scrierea și masca verificate."""
    lot, capete, lungime, _ = cache_k.shape
    n = k.shape[2]
    inainte_k, inainte_v = cache_k.clone(), cache_v.clone()
    adresa_k, adresa_v = cache_k.data_ptr(), cache_v.data_ptr()
    cautare = _CautaCat((cache_k, cache_v))
    with fara_jurnale_torch(), _fara_schimbari_de_configuratie("funcția ta `actualizeaza_cache`"):
        with cautare:
            masca = _cu_context(apeleaza, functie, cache_k, cache_v, k, v, pozitii, limita_s=LIMITA_APEL_S,
                                interzise=_INTERZISE_1, ce="funcția ta `actualizeaza_cache`",
                                context=f"{context}, cu un lot de {lot} și {capete} capete")
    if cautare.redimensionat or tuple(cache_k.shape) != (lot, capete, lungime, k.shape[3]) or cache_k.data_ptr() != adresa_k \
            or cache_v.data_ptr() != adresa_v:
        raise GresealaCursant(
            f"Funcția ta a schimbat forma sau memoria cache-ului {context} (`resize_`, `set_`, un cache care crește): cache-ul "
            "static are mereu aceeași formă și aceeași adresă, prealocat o dată. O formă nouă la fiecare pas înseamnă o "
            "recompilare pentru fiecare jeton; scrie pe loc, cu `index_copy_`."
        )
    lista = pozitii.tolist()
    _verifica_scrierea("cache_k", cache_k, inainte_k, k, lista, cautare, context, v)
    _verifica_scrierea("cache_v", cache_v, inainte_v, v, lista, cautare, context, k)
    vizibile = _vizibile(masca, (lot, capete, n, lungime), context)
    _verifica_masca(vizibile, lista, lungime, context)
    return masca


def _cu_context(functie, *argumente, context: str, **argumente_numite):
    """`apeleaza(...)`; o eroare a codului cursantului primește la sfârșit și cazul în care a apărut (formele
    verificării), ca o funcție corectă doar pe formele exemplului să-și vadă greșeala. Mesajul pentru o soluție
    nescrisă rămâne neschimbat."""
    from .baza import NESCRIS

    try:
        return functie(*argumente, **argumente_numite)
    except GresealaCursant as greseala:
        if str(greseala) == NESCRIS or greseala.exceptie is None:
            raise
        noua = GresealaCursant(f"{greseala} (Cazul: {context}.)")
        noua.exceptie = greseala.exceptie
        raise noua from None


def _decodare(decodor, jetoane, pozitii):
    return decodor(jetoane, pozitii)


class _Grafuri:
    """Un backend care doar ține minte grafurile lui Dynamo și le rulează neschimbate (ca `backend="eager"`):
    gărzile și recompilările le decide Dynamo, oricare ar fi backend-ul."""

    def __init__(self):
        self.grafuri = []

    def __call__(self, gm, exemple):
        self.grafuri.append(gm)
        return gm.forward

    def cauta_numere(self, context: str) -> None:
        """Respinge un graf care scoate un număr Python dintr-un tensor (`.item()`, `int()`, `.tolist()`): Dynamo îl
        poate captura ca număr necunoscut la compilare, dar pe GPU fiecare pas ar aștepta să copieze numărul pe procesor."""
        for gm in self.grafuri:
            for nod in gm.graph.nodes:
                nume = nod.target if isinstance(nod.target, str) else getattr(nod.target, "__name__", str(nod.target))
                if nume in ("item", "tolist", "_local_scalar_dense", "_local_scalar_dense.default"):
                    raise GresealaCursant(
                        f"Funcția ta scoate poziția ca număr Python din tensor (`int(...)`, `.item()`, `.tolist()`, un tensor folosit "
                        f"ca margine de felie) {context}. Torch-ul tău o compilează o dată, cu un număr necunoscut la compilare, dar pe "
                        "GPU fiecare pas ar trebui să aștepte GPU-ul ca să copieze numărul pe procesor: o sincronizare pe jeton, iar "
                        "grafurile CUDA nu se mai pot folosi. Alte versiuni rup graful sau recompilează pentru fiecare poziție. Lasă "
                        "poziția tensor: `cache_k.index_copy_(2, pozitii, k)` și "
                        "`torch.arange(L, device=pozitii.device)[None, :] <= pozitii[:, None]`."
                    )


_MESAJE_GRAF = (
    (re.compile(r"generic_jump|Boolean value of Tensor|data-dependent branching|control flow", re.I),
     "ai folosit un tensor într-un `if` (sau `and`, `or`, `while`): ramificarea după o valoare rupe graful. Scrie masca cu "
     "comparații pe tensori și `torch.where`, fără `if`"),
    (re.compile(r"item\(\)|_local_scalar_dense|tolist|data-dependent|Data dependent|__index__|unbacked|"
                r"Could not guard on data", re.I),
     "ai transformat o poziție într-un număr Python (`int(...)`, `.item()`, `.tolist()`, un tensor folosit ca indice de "
     "felie sau într-un `range`). Sub `torch.compile`, Dynamo ar scrie numărul în graf și ar pune o gardă pe el: o "
     "recompilare pentru fiecare poziție; cu `fullgraph=True`, o eroare. Lasă poziția tensor: `index_copy_(2, pozitii, k)` "
     "și `torch.arange(L, device=pozitii.device)[None, :] <= pozitii[:, None]`"),
)


def _explica_compilarea(greseala: GresealaCursant, context: str) -> GresealaCursant:
    """O eroare a pasului compilat cu `fullgraph=True`: o întrerupere a grafului sau o recompilare, spusă în română."""
    eroare = greseala.exceptie
    if eroare is None:
        return greseala
    text = ""
    interioara = eroare
    while interioara is not None and len(text) < 8000:
        text += f"\n{type(interioara).__name__}: {interioara}"
        interioara = interioara.__cause__ or interioara.__context__
    linie = linia_cursantului(eroare)
    unde = f" la linia {linie[0]} (`{linie[1]}`)" if linie and linie[1] else ""
    if "fail_on_recompile" in text:
        potrivire = re.search(r"guard failure\(s\):\s*\n\s*-\s*(.+)", text)
        garda = f" Garda căzută: „{potrivire.group(1).strip()[:160]}”." if potrivire else ""
        return GresealaCursant(
            f"Pasul de decodare s-a recompilat la o poziție nouă {context}: ceva din funcția ta depinde de poziție ca număr "
            f"Python sau ca formă.{garda} Cache-ul static se compilează o singură dată pentru toate pozițiile: poziția rămâne "
            "tensor, iar formele nu se schimbă."
        )
    for tipar, explicatie in _MESAJE_GRAF:
        if tipar.search(text):
            return GresealaCursant(f"Pasul compilat cu `fullgraph=True` s-a oprit{unde} {context}: {explicatie}."
                                   f"{cu_originalul(traduce_exceptie(eroare))}")
    if "Unsupported" in text or "graph break" in text.lower():
        return GresealaCursant(f"Funcția ta rupe graful{unde} {context}: cu `fullgraph=True`, pasul de decodare trebuie capturat "
                               f"întreg. Păstrează doar operații pe tensori.{cu_originalul(traduce_exceptie(eroare))}")
    return greseala


def _model_1(rng, lungime_maxima: int) -> ReteaTransformer:
    """Modelul verificării: modelul cursului, mic, cu greutăți alese de `rng` și capul de ieșire mărit, ca
    logit-urile să fie departe unele de altele (argmax-ul nu se schimbă la rotunjiri)."""
    configuratie = ConfiguratieTransformer(vocabular=48, dim_model=16, nr_capete=2, nr_straturi=2, lungime=lungime_maxima)
    generator = torch.random.get_rng_state()
    torch.manual_seed(rng.randrange(2**31))
    model = ReteaTransformer(configuratie)
    with torch.no_grad():
        for p in model.parameters():
            p.normal_(0, 0.3)
        model.iesire.weight.mul_(10)
    torch.random.set_rng_state(generator)
    return model.eval().requires_grad_(False)


def _cazuri_1(rng) -> list[tuple[int, int, int]]:
    """(lot, L, prompt): un prompt de un singur jeton într-un cache scurt, un prompt de câteva jetoane, cu
    un lot de două secvențe, într-un cache mai lung; decodarea merge până la ultimul loc din cache."""
    scurt = rng.randint(7, 12)
    lung = rng.randint(scurt + 5, 22)
    return [(1, scurt, 1), (2, lung, rng.randint(3, 6))]


def _verifica_pasi(functie, rng) -> str:
    """Verificările pe tensori, fără model: umplerea și două decodări, într-un cache cu valori vechi."""
    lot, capete, lungime, d = 2, 2, rng.randint(9, 15), 4
    generator = torch.Generator().manual_seed(rng.randrange(2**31))
    cache_k = torch.randn(lot, capete, lungime, d, generator=generator) * 3
    cache_v = torch.randn(lot, capete, lungime, d, generator=generator) * 3
    n = rng.randint(3, 5)
    pozitii = torch.arange(n)
    k, v = (torch.randn(lot, capete, n, d, generator=generator) for _ in range(2))
    _apeleaza_1(functie, cache_k, cache_v, k, v, pozitii, f"la umplere ({cu_substantiv(n, 'jeton nou', 'jetoane noi')}, "
                f"pozițiile 0…{n - 1}, într-un cache de {lungime})")
    for p in (n, lungime - 1):
        k, v = (torch.randn(lot, capete, 1, d, generator=generator) for _ in range(2))
        _apeleaza_1(functie, cache_k, cache_v, k, v, torch.tensor([p]),
                    f"la decodare (un jeton nou, la poziția {p}, într-un cache de {lungime})")
    return f"cache de {lungime}"


def _ruleaza_modelul(functie, rng, lot: int, lungime: int, prompt: int) -> int:
    """Umplerea (eager) și decodarea compilată (`fullgraph=True`, `dynamic=False`, backend-ul „eager”: gărzile și
    recompilările le decide Dynamo, oricare ar fi backend-ul) până la ultimul loc din cache, cu funcția cursantului
    în `DecodorStatic`; logit-urile fiecărui pas comparate cu modelul cursului rulat pe tot prefixul (generatorul
    de referință), pe jetoanele alese lacom de acesta. Întoarce câte poziții a decodat."""
    model = _model_1(rng, lungime)
    decodor = _gen11.DecodorStatic(model, lot=lot, lungime_maxima=lungime, scrie=functie)
    generator = torch.Generator().manual_seed(rng.randrange(2**31))
    with torch.no_grad():
        for cache in decodor.cache:  # valori vechi, ca după o generare de dinainte
            cache.k.copy_(torch.randn(cache.k.shape, generator=generator) * 3)
            cache.v.copy_(torch.randn(cache.v.shape, generator=generator) * 3)
    secventa = torch.randint(0, model.configuratie.vocabular, (lot, prompt), generator=generator)
    context = (f"(lotul {lot}, un cache de {lungime}, un prompt de {cu_substantiv(prompt, 'jeton', 'jetoane')})")
    pozitii = torch.arange(lungime)
    with torch.no_grad(), fara_jurnale_torch(), _fara_schimbari_de_configuratie("funcția ta `actualizeaza_cache`"):
        # funcțiile interzise le-a căutat deja `_verifica_pasi`; aici, fără urmărirea apelurilor (ar încetini Dynamo)
        logituri = _cu_context(apeleaza, decodor, secventa, pozitii[:prompt], limita_s=LIMITA_APEL_S,
                               ce="umplerea, cu funcția ta", context=f"umplerea în decodorul capitolului, {context[1:-1]}")
        _compara_logituri(logituri, model(secventa), list(range(prompt)), context, "la umplere")
        grafuri = _Grafuri()
        pas = torch.compile(functie_noua(_decodare), backend=grafuri, fullgraph=True, dynamic=False)
        with configuratie_dynamo_implicita():
            for p in range(prompt, lungime):
                jeton = model(secventa)[:, -1:].argmax(-1)  # generatorul de referință: tot prefixul, lacom
                secventa = torch.cat([secventa, jeton], dim=1)
                atitudine = torch.compiler.set_stance("fail_on_recompile") if p > prompt else contextlib.nullcontext()
                try:
                    with atitudine:
                        logituri = apeleaza(pas, decodor, jeton, pozitii[p:p + 1], limita_s=LIMITA_COMPILARE_S,
                                            ce="pasul de decodare compilat, cu funcția ta")
                except GresealaCursant as greseala:
                    raise _explica_compilarea(greseala, f"{context}, la poziția {p}") from None
                if p == prompt:
                    grafuri.cauta_numere(context)
                _compara_logituri(logituri, model(secventa)[:, -1:], [p], context, f"la decodare, poziția {p}")
    return lungime - prompt


def _compara_logituri(obtinut, asteptat: torch.Tensor, pozitii: list[int], context: str, unde: str) -> None:
    if not isinstance(obtinut, torch.Tensor) or obtinut.shape != asteptat.shape:
        raise GresealaCursant(f"Decodorul cu funcția ta a dat {type(obtinut).__name__} de altă formă {unde} {context}.")
    if torch.isnan(obtinut).any():
        raise GresealaCursant(
            f"Logit-urile ies NaN {unde} {context}: un rând al măștii nu vede nicio poziție (softmax-ul unui rând gol). Poziția "
            "nouă trebuie să se vadă pe ea însăși."
        )
    diferenta = (obtinut - asteptat).abs().amax(dim=-1)
    if bool((diferenta <= 1e-3 + 1e-4 * asteptat.abs().amax(dim=-1)).all()):
        return
    secventa, rand = (int(i) for i in (diferenta > 1e-3).nonzero()[0])
    jeton = "alt jeton" if int(obtinut[secventa, rand].argmax()) != int(asteptat[secventa, rand].argmax()) else "același jeton"
    raise GresealaCursant(
        f"Decodorul cu funcția ta dă alte logit-uri decât modelul rulat pe tot prefixul (generatorul de referință) {unde}, "
        f"la poziția {pozitii[rand]}, {context}: diferă cu până la {numar_precis(float(diferenta[secventa, rand]))}, iar lacom "
        f"ar alege {jeton}. Jetoanele generate n-ar mai fi ale generatorului de referință."
    )


def exercitiul_1(actualizeaza_cache) -> Rezultat:
    """Verifică `actualizeaza_cache(cache_k, cache_v, k, v, pozitii)`: întâi pe tensori (umplerea a câteva
    poziții și două decodări, într-un cache cu valori vechi: scrierea pe loc, la pozițiile primite, și masca),
    apoi în decodorul static al capitolului, pe modelul cursului, în două cazuri (un cache scurt cu un prompt
    de un jeton; un lot de două secvențe, un prompt de câteva jetoane, un cache mai lung): logit-urile față de
    modelul rulat pe tot prefixul și o singură compilare a pasului de decodare pentru toate pozițiile, până la
    ultimul loc din cache."""

    def corp():
        cere_functie(actualizeaza_cache, "actualizeaza_cache(cache_k, cache_v, k, v, pozitii)", 5)
        rng = generator_aleator()
        _verifica_pasi(actualizeaza_cache, rng)
        pasi = 0
        cazuri = _cazuri_1(rng)
        for lot, lungime, prompt in cazuri:
            pasi += _ruleaza_modelul(actualizeaza_cache, rng, lot, lungime, prompt)
        (_, scurt, _), (_, lung, prompt) = cazuri
        return (
            f"Cache-ul tău static e corect: scrie pe loc, la pozițiile primite, iar masca ascunde tot ce e după poziția nouă "
            f"(și valorile vechi). În decodorul capitolului, cu un cache de {scurt} și unul de {lung}, un prompt de un jeton "
            f"și unul de {cu_substantiv(prompt, 'jeton', 'jetoane')}, logit-urile sunt ale modelului rulat pe tot prefixul, "
            f"iar pasul de decodare s-a compilat o singură dată pentru fiecare cache, apoi a rulat {cu_substantiv(pasi, 'pas', 'pași')} "
            "fără nicio recompilare."
        )

    return verificare("Exercițiul 1", corp, limita_s=_LIMITA_1_S)


# ---------------------------------------------------------------------------------------------
# Exercițiul 2: stratul liniar int8
# ---------------------------------------------------------------------------------------------


def _tensori_modul(modul, adancime: int = 6) -> list[tuple[str, torch.Tensor]]:
    """Toți tensorii pe care îi ține `modul`: parametrii, tampoanele, atributele (și în liste, tupluri,
    dicționare, submodule), o singură dată fiecare (după obiect)."""
    gasiti: list[tuple[str, torch.Tensor]] = []
    vazute: set[int] = set()

    def viziteaza(obiect, cale: str, adanc: int) -> None:
        if adanc < 0 or id(obiect) in vazute:
            return
        vazute.add(id(obiect))
        if isinstance(obiect, torch.Tensor):
            gasiti.append((cale, obiect))
            return
        if isinstance(obiect, nn.Module):
            for nume, t in list(obiect._parameters.items()) + list(obiect._buffers.items()):
                if t is not None:
                    viziteaza(t, f"{cale}.{nume}" if cale else nume, adanc - 1)
            for nume, m in obiect._modules.items():
                if m is not None:
                    viziteaza(m, f"{cale}.{nume}" if cale else nume, adanc - 1)
            for nume, valoare in vars(obiect).items():
                if not nume.startswith("_"):
                    viziteaza(valoare, f"{cale}.{nume}" if cale else nume, adanc - 1)
            return
        if isinstance(obiect, (list, tuple)):
            for i, element in enumerate(obiect[:100]):
                viziteaza(element, f"{cale}[{i}]", adanc - 1)
        elif isinstance(obiect, dict):
            for cheie, element in list(obiect.items())[:100]:
                viziteaza(element, f"{cale}[{cheie!r}]", adanc - 1)

    viziteaza(modul, "", adancime)
    return gasiti


def _liniar(rng, intrari: int, iesiri: int, bias: bool, tip: torch.dtype, zero: bool) -> nn.Linear:
    """Un `nn.Linear` cu rânduri de mărimi foarte diferite (de la 0,001 la 1), unul cu o valoare ieșită din rând
    și, cu `zero`, unul numai cu zerouri (un canal tăiat, ca într-un model rărit)."""
    generator = torch.Generator().manual_seed(rng.randrange(2**31))
    liniar = nn.Linear(intrari, iesiri, bias=bias)
    with torch.no_grad():
        marimi = torch.logspace(-3, 0, iesiri)[torch.randperm(iesiri, generator=generator)]
        greutate = torch.randn(iesiri, intrari, generator=generator) * marimi[:, None]
        greutate[rng.randrange(iesiri), rng.randrange(intrari)] *= 8  # o valoare ieșită din rând
        if zero:
            greutate[rng.randrange(iesiri)] = 0
        liniar.weight.copy_(greutate)
        if bias:
            liniar.bias.copy_(torch.randn(iesiri, generator=generator) * 0.1)
    return liniar.to(tip).requires_grad_(False)


def _cere_clasa(LiniarInt8) -> None:
    if LiniarInt8 is None:
        raise GresealaCursant("Ai dat None: trebuia clasa `LiniarInt8`.")
    if isinstance(LiniarInt8, nn.Module):
        raise GresealaCursant("Ai dat un strat deja construit, nu clasa: dă numele clasei, `LiniarInt8`, fără paranteze.")
    if not callable(LiniarInt8):
        raise GresealaCursant(f"Trebuia clasa `LiniarInt8`, dar am primit {type(LiniarInt8).__name__}.")
    if LiniarInt8 is _gen11.LiniarInt8 or (isinstance(LiniarInt8, type) and issubclass(LiniarInt8, _gen11.LiniarInt8)):
        raise GresealaCursant("Ai dat clasa cursului, `cap11_generare.LiniarInt8` (sau o clasă derivată din ea): exercițiul îți "
                              "cere să scrii tu stratul int8.")


def _construieste(LiniarInt8, liniar: nn.Linear, context: str):
    greutate, bias = liniar.weight.clone(), None if liniar.bias is None else liniar.bias.clone()
    with fara_jurnale_torch():
        strat = apeleaza(LiniarInt8, liniar, limita_s=LIMITA_APEL_S, interzise=_INTERZISE_2, ce="`LiniarInt8(liniar)`")
    if not isinstance(strat, nn.Module):
        raise GresealaCursant(f"`LiniarInt8(liniar)` a dat {type(strat).__name__}, nu un `nn.Module`: clasa ta moștenește "
                              "`torch.nn.Module` și cheamă `super().__init__()`.")
    if not torch.equal(liniar.weight, greutate) or (bias is not None and not torch.equal(liniar.bias, bias)):
        raise GresealaCursant(f"`LiniarInt8(liniar)` a schimbat stratul primit {context}: cuantizarea face tensori noi, stratul "
                              "original rămâne neatins (altfel modelul din care vine nu mai e același).")
    return strat


def _verifica_memoria(strat, liniar: nn.Linear, context: str) -> None:
    iesiri, intrari = liniar.weight.shape
    elemente = iesiri * intrari
    tensori = _tensori_modul(strat)
    mari_float = [(c, t) for c, t in tensori if t.is_floating_point() and t.numel() >= elemente // 2]
    int8 = [(c, t) for c, t in tensori if t.dtype == torch.int8 and t.numel() == elemente]
    greutate = liniar.weight.detach().float()
    for cale, t in mari_float:
        valori = t.detach().float().reshape(-1)
        if t.numel() == elemente and (torch.equal(valori, greutate.reshape(-1)) or torch.equal(valori, greutate.t().reshape(-1))):
            raise GresealaCursant(
                f"Stratul tău ține greutatea originală, în {t.dtype}, în `{cale}` {context}: memoria e tot cea a unui strat float "
                f"({format_octeti(t.numel() * t.element_size())}). Cuantizarea int8 doar a greutăților înseamnă că greutatea stă "
                "în memorie doar ca int8 (un octet pe element) plus o scală pe rând; nu păstra stratul primit."
            )
        if not int8 and t.numel() == elemente and bool((valori == valori.round()).all()) and float(valori.abs().max()) <= 128:
            raise GresealaCursant(
                f"Greutatea ta cuantizată, `{cale}`, are valori întregi, dar e stocată ca {t.dtype} {context}: "
                f"{format_octeti(t.numel() * t.element_size())}, nu {format_octeti(elemente)}. „int8” e tipul de date: "
                "`.to(torch.int8)`, un octet pe element; altfel ai doar numele."
            )
        if int8:
            raise GresealaCursant(
                f"Pe lângă greutatea int8, stratul tău ține și `{cale}`, un tensor {t.dtype} de "
                f"{format_octeti(t.numel() * t.element_size())} {context}: greutatea dequantizată o dată, la încărcare? Memoria e "
                "atunci înapoi la float, iar citirea la fiecare pas tot din float se face. Ține doar int8 și scalele; "
                "înmulțirea cu scala se face în `forward`, la fiecare apel (compilatorul o poate lipi de produs)."
            )
        raise GresealaCursant(
            f"Greutatea stratului tău, `{cale}`, e {t.dtype} {context} ({format_octeti(t.numel() * t.element_size())}), nu "
            f"int8: i-ai zis int8, dar a rămas în float. Stochează greutatea cuantizată cu `.to(torch.int8)` "
            f"({format_octeti(elemente)})."
        )
    if not int8:
        raise GresealaCursant(
            f"Nu găsesc în stratul tău {context} o greutate int8 cu {cu_substantiv(elemente, 'element', 'elemente')} (ieșiri × "
            "intrări): ține greutatea cuantizată ca tampon (`self.register_buffer(\"greutate\", ...)`) sau ca atribut, de tip "
            "`torch.int8`."
        )
    total = sum(t.numel() * t.element_size() for _, t in tensori)
    permis = elemente + 8 * iesiri + (liniar.bias.numel() * 4 if liniar.bias is not None else 0) + 256
    if total > permis:
        raise GresealaCursant(
            f"Stratul tău ține {format_octeti(total)} în tensori {context}, mai mult decât greutatea int8 "
            f"({format_octeti(elemente)}), scalele și bias-ul: ai două copii ale greutății? Memoria unui strat int8 e aproape un "
            "sfert din a celui în float32."
        )


def _greutatea_refacuta(strat, intrari: int, context: str) -> torch.Tensor:
    """Greutatea pe care o folosește de fapt `strat` (ieșiri × intrări), scoasă din ieșirile lui: strat(I) − strat(0)."""
    with torch.no_grad(), fara_jurnale_torch():
        y_unu = apeleaza(strat, torch.eye(intrari), limita_s=LIMITA_APEL_S, interzise=_INTERZISE_2, ce="`strat(x)`")
        y_zero = apeleaza(strat, torch.zeros(1, intrari), limita_s=LIMITA_APEL_S, interzise=_INTERZISE_2, ce="`strat(x)`")
    for y in (y_unu, y_zero):
        if not isinstance(y, torch.Tensor):
            raise GresealaCursant(f"`strat(x)` a întors {type(y).__name__} {context}, nu un tensor: ai uitat `return`?")
    return (y_unu - y_zero).t(), y_zero[0]


def _diagnostic_greutate(w: torch.Tensor, w_refacut: torch.Tensor, context: str) -> None:
    """Greutatea refăcută trebuie să fie greutatea inițială, până la rotunjirea int8 pe fiecare rând:
    cel mult jumătate din pasul rândului (maximul absolut al rândului / 127)."""
    amax = w.abs().amax(dim=1)
    pas = amax / 127
    eroare = (w_refacut - w).abs().amax(dim=1)
    if torch.isnan(w_refacut).any():
        randuri_zero = (amax == 0).nonzero().flatten().tolist()
        if randuri_zero and bool(torch.isnan(w_refacut[randuri_zero[0]]).any()):
            raise GresealaCursant(
                f"Un rând numai cu zerouri (rândul {randuri_zero[0]}) dă NaN {context}: scala lui e 0, iar greutatea împărțită la "
                "0 e NaN. Pune un minim scalei: `scala = w.abs().amax(dim=1).clamp(min=1e-8) / 127` (un rând zero rămâne zero)."
            )
        raise GresealaCursant(f"Stratul tău dă NaN {context}: verifică împărțirea la scală.")
    limita = pas / 2 * 1.002 + 1e-7
    if bool((eroare <= limita).all()):
        return
    rand = int((eroare / limita).argmax())
    if float(w_refacut.abs().max()) > 20 * float(w.abs().max()):
        raise GresealaCursant(
            f"Ieșirea stratului tău e de zeci de ori prea mare {context}: în `forward` ai uitat să înmulțești cu scala. Produsul cu "
            "greutatea int8 dă valori în unitățile int8 (între −127 și 127); abia înmulțit cu scala rândului revine la mărimea "
            "greutății inițiale."
        )
    argmax = int(w[rand].abs().argmax())
    if float(w[rand, argmax]) * float(w_refacut[rand, argmax]) < 0:
        raise GresealaCursant(
            f"Depășire {context}: pe rândul {rand}, cea mai mare greutate ({numar_precis(float(w[rand, argmax]))}) a ieșit cu semnul "
            f"schimbat ({numar_precis(float(w_refacut[rand, argmax]))}). Ai împărțit la maxim / 128 (sau nu ai limitat valorile): "
            "128 nu încape în int8 (−128…127) și devine −128. Scala e maximul absolut împărțit la 127."
        )
    if bool((w_refacut.abs() <= w.abs() + 1e-7).all()) and bool((eroare <= pas * 1.002 + 1e-7).all()):
        raise GresealaCursant(
            f"Greutatea refăcută din int8 e mereu mai mică în valoare absolută decât cea inițială {context}: trunchiezi "
            "(`.to(torch.int8)` taie zecimalele spre zero) în loc să rotunjești. Rotunjește întâi, `torch.round(w / scala)`, apoi "
            "convertește: eroarea scade la jumătate de pas."
        )
    pe_coloane = w.abs().amax(dim=0) / 127
    if bool(((w_refacut - w).abs() <= pe_coloane[None, :] / 2 * 1.002 + 1e-7).all()):
        raise GresealaCursant(
            f"Scala ta e pe coloane (pe canalele de intrare, `dim=0`) {context}, nu pe rânduri: rândul {rand} pierde precizia. "
            "Canalul de ieșire e rândul greutății (ieșiri × intrări): `w.abs().amax(dim=1) / 127`."
        )
    pas_global = float(amax.max()) / 127
    if bool((eroare <= pas_global / 2 * 1.002 + 1e-7).all()):
        raise GresealaCursant(
            f"O singură scală pentru toată matricea {context}: rândul {rand}, cu valori de până la {numar_precis(float(amax[rand]))}, "
            f"pierde precizia (eroare {numar_precis(float(eroare[rand]))}, față de cel mult {numar_precis(float(limita[rand]))} cu o "
            "scală a lui). Cuantizarea int8 doar a greutăților are o scală pe fiecare canal de ieșire, adică pe fiecare rând: "
            "`w.abs().amax(dim=1) / 127`."
        )
    raise GresealaCursant(
        f"Greutatea pe care o folosește stratul tău diferă de cea inițială mai mult decât permite rotunjirea int8 {context}: pe "
        f"rândul {rand}, cu până la {numar_precis(float(eroare[rand]))}, față de cel mult jumătate de pas, "
        f"{numar_precis(float(limita[rand]))} (pasul rândului: maximul lui absolut / 127)."
    )


def _verifica_iesirile(strat, liniar: nn.Linear, w_refacut, bias_refacut, context: str, rng) -> None:
    iesiri, intrari = liniar.weight.shape
    tip = liniar.weight.dtype
    generator = torch.Generator().manual_seed(rng.randrange(2**31))
    for forma in ((1, intrari), (3, intrari), (2, 5, intrari)):
        x = torch.randn(forma, generator=generator).to(tip)
        with torch.no_grad(), fara_jurnale_torch():
            y = _cu_context(apeleaza, strat, x, limita_s=LIMITA_APEL_S, interzise=_INTERZISE_2, ce="`strat(x)`",
                            context=f"o intrare de forma {forma}, {context[1:-1]}")
        if not isinstance(y, torch.Tensor):
            raise GresealaCursant(f"`strat(x)` a întors {type(y).__name__} {context}, nu un tensor: ai uitat `return`?")
        asteptata = (*forma[:-1], iesiri)
        if tuple(y.shape) != asteptata:
            raise GresealaCursant(f"Pentru o intrare de forma {forma}, stratul tău dă forma {tuple(y.shape)}, nu {asteptata} {context}: "
                                  "ultima dimensiune devine numărul ieșirilor, celelalte rămân.")
        if y.dtype != x.dtype:
            raise GresealaCursant(
                f"Pentru o intrare {x.dtype}, stratul tău întoarce {y.dtype} {context}: ieșirea rămâne în tipul activărilor (int8 e "
                "doar al greutății). Convertește greutatea și scala la `x.dtype` în `forward` (sau ține scala în tipul stratului "
                "primit)."
            )
        if w_refacut is not None:
            asteptat = F.linear(x.float(), w_refacut, bias_refacut)
            if not torch.allclose(y.float(), asteptat, rtol=1e-4, atol=1e-5):
                raise GresealaCursant(f"Stratul tău nu e liniar {context}: pentru o intrare de forma {forma}, ieșirea nu e produsul cu "
                                      "aceeași greutate și același bias ca pentru celelalte intrări. Nu face nimic în `forward` care să "
                                      "depindă de forma sau de valorile intrării, în afara produsului.")
        else:
            referinta = liniar(x).float()
            diferente = (y.float() - referinta).abs()
            permis = _abaterea_permisa_bf16(liniar, x)
            if not bool((diferente <= permis).all()):
                pozitie = int((diferente - permis).argmax())
                eroare, limita = float(diferente.flatten()[pozitie]), float(permis.flatten()[pozitie])
                raise GresealaCursant(f"În bfloat16, stratul tău diferă de stratul inițial cu {numar_precis(eroare)} pe o ieșire "
                                      f"{context}, peste cât pot da rotunjirea int8 și rotunjirile bfloat16 împreună "
                                      f"({numar_precis(limita)}). Fă cuantizarea în float32 (`liniar.weight.float()`): împărțirea la "
                                      "scală în bfloat16 rotunjește destul cât o valoare să treacă de 127.")


def _abaterea_permisa_bf16(liniar: nn.Linear, x: torch.Tensor) -> torch.Tensor:
    """Cât poate diferi, pe fiecare ieșire, un strat int8 corect de stratul bfloat16 primit, în cel mai rău caz
    (nu în medie: un răspuns corect nu pică pe nicio sămânță). Fiecare greutate refăcută diferă de cea inițială cu cel
    mult jumătate de pas al rândului ei (maximul absolut / 127 / 2), deci ieșirea j cu cel mult Σ|x_i| · pas_j / 2.
    Peste asta, rotunjirile bfloat16 (2⁻⁸ din mărime fiecare: produsele, suma, scala, înmulțirea cu ea, bias-ul și,
    de partea cealaltă, ieșirea de referință), cel mult câteva, pe mărimea Σ|x_i|·|w_ji| + |b_j|."""
    xf, wf = x.float(), liniar.weight.float()
    pas = wf.abs().amax(dim=1) / 127
    marime = xf.abs() @ wf.abs().T + (liniar.bias.float().abs() if liniar.bias is not None else 0)
    return xf.abs().sum(-1, keepdim=True) * (pas / 2) * 1.01 + 8 * 2.0**-8 * marime + 1e-6


def _verifica_compilarea(strat, intrari: int, tip: torch.dtype, context: str) -> None:
    """`torch.compile(..., fullgraph=True)`, cu backend-ul „eager” (doar Dynamo): stratul se capturează întreg."""

    def aplica(strat, x):
        return strat(x)

    x = torch.randn(1, intrari).to(tip)
    compilat = torch.compile(functie_noua(aplica), backend="eager", fullgraph=True)
    try:
        with torch.no_grad(), fara_jurnale_torch(), configuratie_dynamo_implicita():
            apeleaza(compilat, strat, x, limita_s=LIMITA_COMPILARE_S, interzise=_INTERZISE_2, ce="stratul tău, compilat")
    except GresealaCursant as greseala:
        eroare = greseala.exceptie
        linie = linia_cursantului(eroare) if eroare is not None else None
        unde = f" la linia {linie[0]} (`{linie[1]}`)" if linie and linie[1] else ""
        raise GresealaCursant(
            f"Stratul tău nu se compilează întreg, cu `fullgraph=True`{unde} {context}: o întrerupere a grafului (NumPy, `.item()`, "
            "`print`, o funcție pe care Dynamo n-o cunoaște). În `forward`, doar operații pe tensori, ca să le poată lipi "
            "compilatorul într-un singur kernel." + (cu_originalul(traduce_exceptie(eroare)) if eroare is not None else "")
        ) from None


def exercitiul_2(LiniarInt8) -> Rezultat:
    """Verifică clasa `LiniarInt8`: pe trei straturi alese la întâmplare (37 de intrări, un rând numai cu zerouri, rânduri
    de mărimi foarte diferite; un strat fără bias; unul în bfloat16), stratul construit nu schimbă stratul primit, ține
    greutatea doar în int8 (și scalele), greutatea pe care o folosește (refăcută din ieșiri) e cea inițială până la
    rotunjirea int8 pe fiecare rând, ieșirile au forma și tipul intrării, iar stratul se compilează întreg."""

    def corp():
        _cere_clasa(LiniarInt8)
        rng = generator_aleator()
        cazuri = [
            (37, rng.randint(9, 14), True, torch.float32, True),
            (rng.choice((48, 64, 80)), rng.randint(16, 24), False, torch.float32, False),
            (32, 8, True, torch.bfloat16, False),
        ]
        for intrari, iesiri, bias, tip, zero in cazuri:
            context = (f"(un strat {intrari} → {iesiri}, {'cu' if bias else 'fără'} bias, {str(tip).removeprefix('torch.')}"
                       + (", cu un rând numai cu zerouri)" if zero else ")"))
            liniar = _liniar(rng, intrari, iesiri, bias, tip, zero)
            strat = _construieste(LiniarInt8, liniar, context)
            _verifica_memoria(strat, liniar, context)
            w_refacut = bias_refacut = None
            if tip == torch.float32:
                w_refacut, y_zero = _greutatea_refacuta(strat, intrari, context)
                _diagnostic_greutate(liniar.weight.float(), w_refacut, context)
                bias_asteptat = liniar.bias if bias else torch.zeros(iesiri)
                if not isinstance(y_zero, torch.Tensor) or not torch.allclose(y_zero, bias_asteptat, atol=1e-6):
                    raise GresealaCursant(
                        f"Pentru o intrare numai cu zerouri, stratul tău dă altceva decât bias-ul {context}: "
                        + ("bias-ul lipsește sau e altul; adaugă-l neschimbat, după înmulțirea cu scala." if bias else
                           "stratul primit n-are bias (`liniar.bias` e None), deci ieșirea trebuie să fie zero.")
                    )
                bias_refacut = y_zero
            _verifica_iesirile(strat, liniar, w_refacut, bias_refacut, context, rng)
            _verifica_compilarea(strat, intrari, tip, context)
        return (
            "Stratul tău int8 e corect: greutatea stă în memorie doar ca int8 (un octet pe element) și câte o scală pe rând, "
            "rotunjirea rămâne sub jumătate de pas pe fiecare rând (și pe rândurile mici, și pe cel numai cu zerouri), ieșirea "
            "păstrează tipul activărilor, iar stratul se compilează întreg."
        )

    return verificare("Exercițiul 2", corp, limita_s=_LIMITA_2_S)


# ---------------------------------------------------------------------------------------------
# Exercițiul 3: plafonul și predicțiile
# ---------------------------------------------------------------------------------------------

#: Schimbările despre care prezici în ce parte mută plafonul (jetoane pe secundă).
SCHIMBARI = ("lot 2", "int8", "context dublu", "lot 2, cache-ul domină")
#: Răspunsurile posibile.
RASPUNSURI_POSIBILE = ("crește", "scade", "aproape la fel")
#: Scenariul predicțiilor: un model de 1 miliard de parametri în bfloat16 (2 GB de greutăți), cache-ul KV
#: de 256 KiB pe poziție, lotul 1; „context” e numărul pozițiilor citite la un pas.
SCENARIU = {"octeti_greutati": 2e9, "octeti_kv_pe_pozitie": 256 * 1024, "context": 1024, "context_lung": 65536}
#: Sub această schimbare relativă a plafonului, răspunsul e „aproape la fel”.
PRAG_APROAPE = 0.10


def _normalizeaza(text) -> str:
    simplu = unicodedata.normalize("NFKD", str(text)).encode("ascii", "ignore").decode().lower().strip()
    return re.sub(r"\s+", " ", simplu)


def _cazuri_3(rng) -> list[tuple[float, float, int, int, float]]:
    """(octeți greutăți, octeți KV pe poziție, poziție, lot, GB/s): poziția 0 cu lotul 1, un caz obișnuit cu lotul 1,
    un lot mare, un cache gol (doar greutăți) cu un lot, un cache care domină octeții."""
    def w():
        return float(round(10 ** rng.uniform(6.5, 10.3)))

    def kv():
        return float(2 ** rng.randint(10, 19))

    return [
        (w(), kv(), 0, 1, float(rng.randint(20, 5000))),
        (w(), kv(), rng.randint(1, 4000), 1, float(rng.randint(20, 5000))),
        (w(), kv(), rng.randint(1, 4000), rng.randint(8, 256), float(rng.randint(20, 5000))),
        (w(), 0.0, rng.randint(1, 4000), rng.randint(2, 64), float(rng.randint(20, 5000))),
        (1e8, 2.0 ** 20, rng.randint(2000, 8000), rng.randint(4, 32), float(rng.randint(20, 5000))),
    ]


#: Greșelile recunoscute: (formula greșită, explicația). Fiecare primește (w, kv, p, lot, gbps).
_GRESELI_3 = (
    (lambda w, kv, p, lot, g: g * 1e9 / (w + lot * kv * (p + 1)),
     "ai întors pași pe secundă, nu jetoane: un pas produce câte un jeton pentru fiecare secvență din lot, deci `lot` jetoane; "
     "înmulțește cu lotul"),
    (lambda w, kv, p, lot, g: lot * g * 1e9 / (lot * w + lot * kv * (p + 1)),
     "ai citit greutățile o dată pentru fiecare secvență: la un pas, greutățile se citesc o singură dată pentru tot lotul "
     "(de aici vine câștigul unui lot); doar cache-ul KV e al fiecărei secvențe"),
    (lambda w, kv, p, lot, g: lot * g * 1e9 / (w + kv * (p + 1)),
     "ai citit cache-ul KV o singură dată pentru tot lotul: fiecare secvență are cache-ul ei, deci octeții KV se înmulțesc cu lotul"),
    (lambda w, kv, p, lot, g: lot * g * 1e9 / (w + lot * kv * p),
     "la poziția p (numărată de la 0), atenția citește p + 1 poziții (0…p, inclusiv cea nouă), nu p"),
    (lambda w, kv, p, lot, g: lot * g * 1e9 / w,
     "ai uitat cache-ul KV: la fiecare pas, atenția citește cheile și valorile tuturor pozițiilor de până atunci"),
    (lambda w, kv, p, lot, g: lot * g * 2**30 / (w + lot * kv * (p + 1)),
     "GB/s înseamnă aici 10⁹ octeți pe secundă (ca lățimea de bandă măsurată), nu 2³⁰ (GiB)"),
    (lambda w, kv, p, lot, g: lot * g / (w + lot * kv * (p + 1)),
     "ai uitat să treci din GB/s în octeți pe secundă: înmulțește cu 10⁹"),
    (lambda w, kv, p, lot, g: lot * g * 1e9 / 8 / (w + lot * kv * (p + 1)),
     "ai amestecat biți și octeți: și lățimea de bandă (GB/s), și octeții sunt în octeți, fără împărțire la 8"),
    (lambda w, kv, p, lot, g: lot * g * 1e9 * 8 / (w + lot * kv * (p + 1)),
     "ai amestecat biți și octeți: și lățimea de bandă (GB/s), și octeții sunt în octeți, fără înmulțire cu 8"),
    (lambda w, kv, p, lot, g: (w + lot * kv * (p + 1)) / (lot * g * 1e9),
     "ai întors timpul pe jeton (secunde), nu jetoanele pe secundă: e inversul"),
)


def _verifica_plafonul(functie, rng) -> int:
    cazuri = _cazuri_3(rng)
    obtinute = []
    for w, kv, p, lot, gbps in cazuri:
        with fara_jurnale_torch():
            valoare = apeleaza(functie, w, kv, p, lot, gbps, limita_s=LIMITA_APEL_S, interzise=_INTERZISE_3,
                               ce="funcția ta `plafon_jetoane_pe_secunda`")
        obtinute.append(cere_numar(valoare, "plafon"))
    corecte = [lot * gbps * 1e9 / (w + lot * kv * (p + 1)) for w, kv, p, lot, gbps in cazuri]
    gresite = [i for i, (v, c) in enumerate(zip(obtinute, corecte)) if not math.isclose(v, c, rel_tol=1e-6)]
    if not gresite:
        return len(cazuri)
    i = gresite[0]
    w, kv, p, lot, gbps = cazuri[i]
    caz = (f"cu greutăți de {format_octeti(w)}, {format_octeti(kv)} de cache KV pe poziție, poziția {format_numar(p)}, "
           f"lotul {format_numar(lot)} și {format_numar(gbps)} GB/s")
    inceput = f"Plafonul tău, {caz}, e {numar_precis(obtinute[i])} jetoane/s, nu {numar_precis(corecte[i])}"
    # greșeala recunoscută e cea care explică toate cazurile, nu doar primul greșit
    for formula, explicatie in _GRESELI_3:
        if all(math.isclose(v, formula(*c), rel_tol=1e-6) for v, c in zip(obtinute, cazuri)):
            raise GresealaCursant(f"{inceput}: {explicatie}.")
    raise GresealaCursant(
        f"{inceput}: un pas citește greutățile o dată și cache-ul KV al fiecărei secvențe până la poziție (p + 1 poziții), cu "
        "lățimea de bandă dată, și produce câte un jeton pe secvență."
    )


_DE_CE = {
    "lot 2": "greutățile (2 GB) se citesc o dată pentru ambele secvențe, iar cache-ul lor e mic: pasul costă aproape la fel "
             "și produce două jetoane",
    "int8": "greutățile, cea mai mare parte din octeții unui pas, scad la jumătate față de bfloat16",
    "context dublu": "atenția citește de două ori mai multe poziții din cache la fiecare pas: mai mulți octeți pe pas",
    "lot 2, cache-ul domină": "la 65 536 de poziții, cache-ul fiecărei secvențe (16 GiB) e mult mai mare decât greutățile: al doilea "
                              "jeton al pasului costă aproape cât primul, deci lotul abia ajută",
}


def _verifica_predictiile(predictii) -> None:
    w, kv, context, lung = (SCENARIU[c] for c in ("octeti_greutati", "octeti_kv_pe_pozitie", "context", "context_lung"))

    def plafon(w, lot, context):  # jetoane pe secundă, până la lățimea de bandă (aceeași peste tot)
        return lot / (w + lot * kv * context)

    def raport_scenariu(schimbare: str) -> float:
        if schimbare == "lot 2":
            return plafon(w, 2, context) / plafon(w, 1, context)
        if schimbare == "int8":
            return plafon(w / 2, 1, context) / plafon(w, 1, context)
        if schimbare == "context dublu":
            return plafon(w, 1, 2 * context) / plafon(w, 1, context)
        return plafon(w, 2, lung) / plafon(w, 1, lung)

    if predictii is None:
        raise GresealaCursant("Predicțiile sunt None: trebuia un dicționar {schimbare: răspuns}.")
    if not isinstance(predictii, dict):
        raise GresealaCursant(f"Predicțiile trebuie să fie un dicționar {{schimbare: răspuns}}, nu {type(predictii).__name__}.")
    lipsa = [s for s in SCHIMBARI if s not in predictii]
    straine = [k for k in predictii if k not in SCHIMBARI]
    if straine:
        raise GresealaCursant(f"Cheia {straine[0]!r} nu e una dintre schimbări; cheile sunt exact: "
                              + ", ".join(f"„{s}”" for s in SCHIMBARI) + ".")
    if lipsa:
        raise GresealaCursant(f"Lipsește predicția pentru „{lipsa[0]}”.")
    posibile = {_normalizeaza(r): r for r in RASPUNSURI_POSIBILE} | {"la fel": "aproape la fel"}
    for schimbare in SCHIMBARI:
        raspuns = predictii[schimbare]
        if raspuns is None or raspuns is Ellipsis:
            raise GresealaCursant(f"Încă n-ai scris predicția pentru „{schimbare}”: alege unul dintre "
                                  + ", ".join(f"„{r}”" for r in RASPUNSURI_POSIBILE) + ".")
        ales = posibile.get(_normalizeaza(raspuns))
        if ales is None:
            raise GresealaCursant(f"Predicția pentru „{schimbare}” e {raspuns!r}; răspunsurile posibile sunt "
                                  + ", ".join(f"„{r}”" for r in RASPUNSURI_POSIBILE) + ".")
        raport = raport_scenariu(schimbare)
        corect = "aproape la fel" if abs(raport - 1) < PRAG_APROAPE else ("crește" if raport > 1 else "scade")
        if ales != corect:
            raise GresealaCursant(
                f"Pentru „{schimbare}” ai prezis „{ales}”, dar plafonul {corect.replace('aproape la fel', 'rămâne aproape la fel')}: "
                f"se înmulțește cu {format_numar(raport)}, pentru că {_DE_CE[schimbare]}."
            )


def exercitiul_3(plafon_jetoane_pe_secunda, predictii) -> Rezultat:
    """Verifică `plafon_jetoane_pe_secunda(octeti_greutati, octeti_kv_pe_pozitie, pozitie, lot, gbps)` pe cinci cazuri
    alese la întâmplare (poziția 0 cu lotul 1, lotul 1, un lot mare, un cache gol, un cache care domină octeții) și
    predicțiile (`predictii`, un dicționar cu cheile din `SCHIMBARI` și valori din `RASPUNSURI_POSIBILE`) pe scenariul
    `SCENARIU`."""

    def corp():
        cere_functie(plafon_jetoane_pe_secunda, "plafon_jetoane_pe_secunda(octeti_greutati, octeti_kv_pe_pozitie, pozitie, lot, gbps)", 5)
        rng = generator_aleator()
        cazuri = _verifica_plafonul(plafon_jetoane_pe_secunda, rng)
        _verifica_predictiile(predictii)
        return (
            f"Plafonul tău e corect pe {cu_substantiv(cazuri, 'caz ales', 'cazuri alese')} la întâmplare (și la poziția 0, și cu un "
            "lot mare, și când cache-ul domină), iar predicțiile se potrivesc cu el: lotul și int8 ridică plafonul, contextul "
            "mai lung îl coboară, iar când cache-ul domină octeții, lotul abia îl mișcă."
        )

    return verificare("Exercițiul 3", corp, limita_s=_LIMITA_3_S)
