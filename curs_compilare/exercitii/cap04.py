"""Verificările exercițiilor din capitolul 04 — „CUDA Graphs (grafuri CUDA) și
torch.compile(mode="reduce-overhead")”.

- Exercițiul 1: pasul de reluare al unui graf CUDA capturat de mână (copiezi intrarea în
  tamponul static, reiei graful, întorci o copie a ieșirii).
- Exercițiul 2: ieșirile unui model care își refolosește memoria de ieșire de la un apel la
  altul, cum face un model compilat cu mode="reduce-overhead".
- Exercițiul 3: loturile (*batch*) la care reduce-overhead merită, după măsurători.

Fiecare verificare folosește la fiecare rulare alte intrări, alte forme și (la 1 și 2) alte
ponderi, alese de `generator_aleator` (cu `CURS_SEMINTA=…` în mediu, mereu aceleași). Funcția
cursantului primește doar ce îi trebuie: la exercițiul 1 un graf care are numai `replay()`, la
exercițiul 2 un model care poate fi doar apelat, ca rezultatul să nu poată fi obținut ocolind
mecanismul exersat.

Verificările rulează și pe o mașină fără GPU: acolo graful CUDA și tamponul static de ieșire
sunt imitate de `GrafSimulat` și `ModelCuIesireStatica`, cu aceeași semantică a memoriei. Pe un
GPU, exercițiile 1 și 2 folosesc lucrul adevărat (`torch.cuda.CUDAGraph`, respectiv, pe lângă
imitație, `torch.compile(mode="reduce-overhead")`).
"""

from __future__ import annotations

import inspect
import math
import numbers

import torch
from torch import nn

from ..cifre import cu_substantiv, format_numar
from .baza import (
    GresealaCursant,
    Rezultat,
    apeleaza,
    compara_tensori,
    cu_originalul,
    generator_aleator,
    numar_precis,
    traduce_exceptie,
    verificare,
)

__all__ = [
    "exercitiul_1",
    "exercitiul_2",
    "exercitiul_3",
    "GrafSimulat",
    "GrafCapturat",
    "ModelCuIesireStatica",
    "ModelDeApelat",
    "MASURATORI_EXEMPLU",
]

_LATIME = 32

#: Limitele de timp: un apel al funcției cursantului și toată verificarea, pe exercițiu. Funcțiile
#: exercițiilor 1 și 2 rulează o rețea minusculă (milisecunde), dar primul apel al unei funcții
#: din torch.compiler (cudagraph_mark_step_begin) importă Inductor, ceea ce pe un procesor lent
#: durează câteva secunde. Cea a exercițiului 3 face un calcul pe un dicționar mic
#: (microsecunde). Pe GPU, exercițiul 2 compilează și un model cu reduce-overhead (o dată pe
#: sesiune, zeci de secunde).
LIMITA_APEL_1_S = 20.0
LIMITA_VERIFICARE_1_S = 60.0
LIMITA_APEL_2_S = 30.0
LIMITA_APEL_2_COMPILAT_S = 60.0
LIMITA_VERIFICARE_2_S = 60.0
LIMITA_VERIFICARE_2_GPU_S = 300.0
LIMITA_APEL_3_S = 2.0
LIMITA_VERIFICARE_3_S = 20.0


def _retea_mica(dispozitiv="cpu", samanta: int = 4) -> nn.Module:
    """Rețeaua mică a exercițiilor: 3 × (Linear(32, 32), GELU), cu ponderile date de `samanta`,
    în modul eval. Generatorul global al cursantului nu e atins."""
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(samanta)
        straturi = [strat for _ in range(3) for strat in (nn.Linear(_LATIME, _LATIME), nn.GELU())]
        retea = nn.Sequential(*straturi)
    return retea.to(dispozitiv).eval()


def _intrari(numar: int, randuri: int, dispozitiv, samanta: int) -> list[torch.Tensor]:
    generator = torch.Generator().manual_seed(samanta)
    return [torch.randn(randuri, _LATIME, generator=generator).to(dispozitiv) for _ in range(numar)]


def _samanta(generator) -> int:
    return generator.randrange(2**31)


def _toleranta(dispozitiv) -> dict:
    """Pe GPU, eager și graful (sau kernel-urile generate) pot folosi TF32 dacă l-ai activat."""
    if torch.device(dispozitiv).type == "cuda":
        return {"rtol": 1e-2, "atol": 1e-3}
    return {"rtol": 1e-4, "atol": 1e-5}


def _tensor_obisnuit(a) -> bool:
    return isinstance(a, torch.Tensor) and not a.is_meta and a.layout == torch.strided


def _apropiat(a, b: torch.Tensor, toleranta: dict) -> bool:
    """Adevărat dacă `a` e un tensor cu aceeași formă, același tip și pe același dispozitiv ca `b`,
    cu valori apropiate. Nu convertește nimic: un tip sau un dispozitiv diferit dă fals."""
    return (
        _tensor_obisnuit(a)
        and a.shape == b.shape
        and a.dtype == b.dtype
        and a.device == b.device
        and bool(torch.allclose(a, b, **toleranta))
    )


def _aceeasi_memorie(a, b: torch.Tensor) -> bool:
    """Adevărat dacă `a` și `b` stau în aceeași zonă de memorie (unul e o vedere a celuilalt)."""
    return (
        _tensor_obisnuit(a)
        and a.device == b.device
        and a.untyped_storage().data_ptr() == b.untyped_storage().data_ptr()
    )


def _descrie_forma(x: torch.Tensor) -> str:
    return "(" + ", ".join(format_numar(d) for d in x.shape) + ")"


# ---------------------------------------------------------------------------------------------
# Exercițiul 1: reluarea unui graf CUDA capturat de mână
# ---------------------------------------------------------------------------------------------


class GrafSimulat:
    """Imită un graf CUDA capturat, pe o mașină fără GPU.

    Un graf CUDA capturat ține minte adresele de memorie pe care le-a folosit la capturare:
    la fiecare reluare citește intrarea de la adresa lui `x_static` și scrie ieșirea la adresa
    lui `y_static`, oricare ar fi numele pe care le folosești tu în Python. `GrafSimulat(model,
    x_static)` face la fel: la creare („capturarea”) calculează o dată modelul și păstrează
    tamponul static de ieșire `y_static`; `replay()` citește memoria lui `x_static` și scrie
    rezultatul în memoria lui `y_static`. Diferența: aici fiecare reluare rulează modelul
    eager, operație cu operație, deci nu câștigi nimic la timp; doar semantica memoriei e aceeași.
    """

    def __init__(self, model, x_static: torch.Tensor):
        self.model = model
        # Vederi ale memoriei de la capturare: rămân legate de aceleași adrese chiar dacă tu legi
        # numele x_static de alt tensor sau îi schimbi memoria (cu .data = ...), ca un graf CUDA.
        self._intrare = x_static.view(x_static.shape)
        with torch.no_grad():
            self.y_static = model(self._intrare)
        self._iesire = self.y_static.view(self.y_static.shape)

    def replay(self) -> None:
        """Reia „graful”: recalculează modelul pe memoria lui x_static, în memoria lui y_static."""
        with torch.no_grad():
            self._iesire.copy_(self.model(self._intrare))


class GrafCapturat:
    """Ce primește funcția cursantului la exercițiul 1: un graf capturat, care poate fi doar
    reluat (`replay()`), ca un `torch.cuda.CUDAGraph` folosit cum arată capitolul. Nu dă acces la
    modelul din spatele lui (pe CPU, la `GrafSimulat`), deci rezultatul nu poate fi calculat
    ocolind reluarea."""

    __slots__ = ("replay",)

    def __init__(self, reluare):
        object.__setattr__(self, "replay", reluare)

    def __getattr__(self, nume):
        raise AttributeError(f"graful capturat are doar metoda replay(), nu și „{nume}”")

    def __setattr__(self, nume, valoare):
        raise AttributeError(f"graful capturat nu are atributul „{nume}” de schimbat")

    def __repr__(self) -> str:
        return "<graf capturat: graf.replay() îl reia>"


def _graf_numarat(graf_brut) -> tuple[GrafCapturat, dict]:
    """Învelește un graf (CUDA sau simulat) și numără reluările, într-un loc pe care codul
    cursantului nu îl vede."""
    stare = {"reluari": 0}

    def replay() -> None:
        stare["reluari"] += 1
        graf_brut.replay()

    return GrafCapturat(replay), stare


def _captureaza_pe_gpu(model, x_static: torch.Tensor):
    """Încălzire pe un stream separat, apoi capturarea modelului într-un `torch.cuda.CUDAGraph`.
    Întoarce graful și tamponul static de ieșire, deja completat de o reluare."""
    with torch.no_grad():
        stream = torch.cuda.Stream()
        stream.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(stream):
            for _ in range(3):
                model(x_static)
        torch.cuda.current_stream().wait_stream(stream)
        graf = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graf):
            y_static = model(x_static)
    graf.replay()
    torch.cuda.synchronize()
    return graf, y_static


_PASII_1 = "Pașii sunt: x_static.copy_(x_nou), graf.replay(), return y_static.clone()."


def _verifica_pasul_1(rezultat, stare, inainte: int, x_static, y_static, adrese, x_nou, asteptat,
                      precedent, toleranta, apel: int) -> None:
    """Un apel al lui `reia`: mecanismul (reluarea, memoria statică, copia) și rezultatul."""
    forma = _descrie_forma(x_nou)
    unde = f"apelul {apel} (intrare de forma {forma})"
    if stare["reluari"] == inainte:
        raise GresealaCursant(
            f"N-ai apelat graf.replay() la {unde}: fără reluare, graful nu rulează și y_static nu "
            "primește rezultatul intrării noi. Dacă ai calculat rezultatul apelând direct un model, "
            "asta e execuția eager, operație cu operație: exact costul lansării (*launch overhead*) "
            f"pe care graful îl elimină. {_PASII_1}"
        )
    adresa_x, forma_x, tip_x, adresa_y, forma_y = adrese
    if (x_static.data_ptr(), x_static.shape, x_static.dtype) != (adresa_x, forma_x, tip_x):
        raise GresealaCursant(
            "Ai schimbat memoria din spatele lui x_static (cu .data = ..., .set_(...) sau "
            ".resize_(...)): graful capturat citește în continuare de la adresa veche, deci nu vede "
            "intrarea nouă. Copiază valorile pe loc, în aceeași memorie: x_static.copy_(x_nou)."
        )
    if (y_static.data_ptr(), y_static.shape) != (adresa_y, forma_y):
        raise GresealaCursant(
            "Ai schimbat memoria din spatele lui y_static: graful scrie în continuare ieșirea la "
            "adresa de la capturare. Lasă tamponul static cum e și întoarce o copie a lui: "
            "return y_static.clone()."
        )
    if not torch.equal(x_static, x_nou):
        raise GresealaCursant(
            f"După {unde}, x_static nu conține valorile lui x_nou, deci graful a calculat tot pe "
            "intrarea veche. Graful capturat citește mereu de la aceeași adresă de memorie, cea a "
            "lui x_static; `x_static = x_nou` doar leagă numele local x_static de alt tensor și nu "
            "schimbă nimic în memoria pe care o citește graful. Copiază valorile pe loc: "
            "x_static.copy_(x_nou)."
        )
    if _aceeasi_memorie(rezultat, y_static):
        raise GresealaCursant(
            "Întorci chiar tamponul static y_static (sau o vedere a lui, cu aceeași memorie): "
            "următoarea reluare a grafului îl suprascrie, iar rezultatul pe care l-ai dat deja se "
            "schimbă sub ochii celui care îl folosește. Întoarce o copie: return y_static.clone()."
        )
    if _apropiat(rezultat, precedent, toleranta) and not _apropiat(rezultat, asteptat, toleranta):
        raise GresealaCursant(
            f"Rezultatul de la {unde} e ieșirea intrării precedente: ai copiat y_static înainte de "
            "graf.replay() (sau ai copiat intrarea după reluare). Ordinea contează: întâi "
            "x_static.copy_(x_nou), apoi graf.replay(), abia apoi y_static.clone()."
        )
    compara_tensori(rezultat, asteptat, f"apelul {apel}, intrare de forma {forma}", **toleranta)
    if not torch.equal(rezultat, y_static):
        raise GresealaCursant(
            f"Rezultatul de la {unde} e aproape de cel corect, dar nu e exact conținutul lui y_static "
            "după reluare: întoarce o copie a tamponului static, nu un alt calcul. "
            f"{_PASII_1}"
        )


def exercitiul_1(reia) -> Rezultat:
    """Verifică `reia(graf, x_static, y_static, x_nou)`, pasul de reluare al unui graf capturat:
    trebuie să copieze `x_nou` în `x_static`, să apeleze `graf.replay()` și să întoarcă o copie a
    lui `y_static`. Pe GPU folosește un `torch.cuda.CUDAGraph` adevărat, pe CPU un `GrafSimulat`.

    La fiecare rulare: o rețea cu alte ponderi, două grafuri capturate pe forme diferite, câte
    2–4 intrări noi pentru fiecare. După fiecare apel verifică mecanismul (graful a fost reluat,
    x_static și y_static au rămas la adresele lor, x_static conține intrarea nouă, rezultatul e o
    copie a lui y_static, cu același tip, pe același dispozitiv) și valorile, iar la final că
    rezultatele date deja nu s-au schimbat între timp."""

    def corp():
        if not callable(reia):
            apeleaza(reia)  # mesajul comun pentru ceva ce nu e funcție
        aleator = generator_aleator()
        dispozitiv = torch.device("cuda" if torch.cuda.is_available() else "cpu")
        toleranta = _toleranta(dispozitiv)
        model = _retea_mica(dispozitiv, _samanta(aleator))
        rezultate, instantanee, apel = [], [], 0
        for randuri in aleator.sample(range(1, 9), 2):
            x_static = _intrari(1, randuri, dispozitiv, _samanta(aleator))[0]
            if dispozitiv.type == "cuda":
                graf_brut, y_static = _captureaza_pe_gpu(model, x_static)
            else:
                graf_brut = GrafSimulat(model, x_static)
                y_static = graf_brut.y_static
            graf, stare = _graf_numarat(graf_brut)
            adrese = (x_static.data_ptr(), x_static.shape, x_static.dtype, y_static.data_ptr(), y_static.shape)
            intrari = _intrari(aleator.randint(2, 4), randuri, dispozitiv, _samanta(aleator))
            with torch.no_grad():
                precedent = model(x_static.clone())  # ce conține y_static înaintea primului apel
                asteptate = [model(x) for x in intrari]
            for x_nou, asteptat in zip(intrari, asteptate):
                apel += 1
                inainte = stare["reluari"]
                rezultat = apeleaza(reia, graf, x_static, y_static, x_nou.clone(), limita_s=LIMITA_APEL_1_S,
                                    ce="funcția ta `reia`")
                _verifica_pasul_1(rezultat, stare, inainte, x_static, y_static, adrese, x_nou, asteptat,
                                  precedent, toleranta, apel)
                rezultate.append(rezultat)
                instantanee.append(rezultat.detach().clone())
                precedent = asteptat

        if dispozitiv.type == "cuda":
            torch.cuda.synchronize()
        for i, (rezultat, instantaneu) in enumerate(zip(rezultate, instantanee), start=1):
            if (
                rezultat.shape != instantaneu.shape
                or rezultat.dtype != instantaneu.dtype
                or rezultat.device != instantaneu.device
                or not torch.equal(rezultat, instantaneu)
            ):
                raise GresealaCursant(
                    f"Rezultatul apelului {i} s-a schimbat după apelurile următoare: întorci o memorie pe "
                    "care reluările următoare o suprascriu. Întoarce la fiecare apel o copie nouă: "
                    "return y_static.clone()."
                )
        unde = "grafuri CUDA adevărate" if dispozitiv.type == "cuda" else "grafuri simulate (mașina n-are GPU)"
        return (
            f"{cu_substantiv(apel, 'intrare nouă', 'intrări noi')}, pe două forme, pe {unde}: de fiecare "
            "dată ai copiat intrarea în tamponul static, ai reluat graful și ai întors o copie a ieșirii. "
            "O reluare lansează tot graful dintr-o dată, nu câte un kernel pe operație. "
            "torch.compile(mode=\"reduce-overhead\") face singur copierea intrării și reluarea, dar nu și "
            "copia ieșirii: despre asta e exercițiul următor."
        )

    limita = LIMITA_VERIFICARE_1_S * (2 if torch.cuda.is_available() else 1)
    return verificare("Exercițiul 1", corp, limita_s=limita)


# ---------------------------------------------------------------------------------------------
# Exercițiul 2: ieșiri care supraviețuiesc apelului următor
# ---------------------------------------------------------------------------------------------


class ModelCuIesireStatica:
    """Imită ieșirea unui model compilat cu mode="reduce-overhead", pe CPU sau pe GPU.

    Un astfel de model rulează, la fiecare apel, o reluare a grafului CUDA, care scrie rezultatul
    mereu în același tampon static de ieșire. `ModelCuIesireStatica(model)` face la fel: calculează
    `model(x)` și copiază rezultatul într-un singur tampon, alocat la primul apel (și din nou doar
    la o formă nouă, ca un graf nou), pe care îl întoarce de fiecare dată. Un tensor primit la un
    apel își schimbă deci valorile la apelul următor, exact ca ieșirea unui model compilat cu
    reduce-overhead (care, în plus, te oprește cu o eroare dacă citești o ieșire suprascrisă).
    `apeluri` numără apelurile, `buffere` ține tampoanele statice alocate.
    """

    def __init__(self, model):
        self.model = model
        self.apeluri = 0
        self.buffere: list[torch.Tensor] = []
        self._iesire = None

    def __call__(self, x: torch.Tensor) -> torch.Tensor:
        with torch.no_grad():
            rezultat = self.model(x)
        iesire = self._iesire
        if (
            iesire is None
            or iesire.shape != rezultat.shape
            or iesire.dtype != rezultat.dtype
            or iesire.device != rezultat.device
        ):
            self._iesire = iesire = torch.empty_like(rezultat)  # o formă nouă: un „graf” nou
            self.buffere.append(iesire)
        iesire.copy_(rezultat)
        self.apeluri += 1
        return iesire


class ModelDeApelat:
    """Ce primește funcția cursantului la exercițiul 2: un model care poate fi doar apelat. Nu dă
    acces la modelul din spatele lui (cel eager, din `ModelCuIesireStatica`, sau `_orig_mod` al
    celui compilat), deci ieșirile nu pot fi luate ocolind tamponul static."""

    __slots__ = ("_apel",)

    def __init__(self, apel):
        object.__setattr__(self, "_apel", apel)

    def __getattr__(self, nume):
        raise AttributeError(f"modelul primit poate fi doar apelat, model(x); nu are „{nume}”")

    def __setattr__(self, nume, valoare):
        raise AttributeError(f"modelul nu are atributul „{nume}” de schimbat")

    def __call__(self, *argumente, **argumente_numite):
        return self._apel(*argumente, **argumente_numite)

    def __repr__(self) -> str:
        return "<model cu ieșire statică: model(x) întoarce mereu același tampon>"


_EXPLICATIA_2 = (
    "Un model compilat cu mode=\"reduce-overhead\" scrie, la fiecare reluare a grafului CUDA, "
    "ieșirea în același tampon static, așa că apelul următor o suprascrie pe cea dinainte. Păstrează "
    "câte o copie a fiecărei ieșiri: model(x).clone() (sau model(x).detach().clone()). "
    "torch.compiler.cudagraph_mark_step_begin() doar marchează începutul unui pas nou; nu ține în "
    "viață ieșirile vechi, deci singur nu ajunge: tot trebuie să le copiezi."
)

_MESAJ_SUPRASCRIS_REAL = (
    "PyTorch a refuzat să citească o ieșire a modelului compilat: ieșirea a fost suprascrisă de un apel "
    "ulterior. În loc să-ți dea în tăcere valori greșite, torch.compile te oprește. "
)
#: Mesajul original al lui PyTorch, pus la capătul explicației.
_ORIGINAL_SUPRASCRIS = cu_originalul("accessing tensor output of CUDAGraphs that has been overwritten by a subsequent run")


def _e_suprascriere(eroare: BaseException | str) -> bool:
    text = str(eroare)
    return "overwritten" in text and not text.startswith(_MESAJ_SUPRASCRIS_REAL)


def _de_ori(numar: int) -> str:
    return "o singură dată" if numar == 1 else f"de {cu_substantiv(numar, 'dată', 'ori')}"


def _verifica_lista(rezultat, numar: int) -> None:
    """Forma răspunsului: o listă (sau un tuplu) de `numar` tensori."""
    if rezultat is None:
        raise GresealaCursant("Funcția a întors None: ai uitat `return`?")
    if isinstance(rezultat, torch.Tensor):
        raise GresealaCursant(
            "Ai întors un singur tensor; trebuie o listă cu câte o ieșire pentru fiecare intrare, "
            "de exemplu [model(x).clone() for x in intrari]."
        )
    if not isinstance(rezultat, (list, tuple)):
        raise GresealaCursant(
            f"Trebuia o listă de tensori, dar am primit {type(rezultat).__name__}. Pune ieșirile într-o "
            "listă: [model(x).clone() for x in intrari]."
        )
    if len(rezultat) != numar:
        raise GresealaCursant(
            f"Lista ta are {cu_substantiv(len(rezultat), 'element', 'elemente')}, dar ai primit "
            f"{cu_substantiv(numar, 'intrare', 'intrări')}: trebuie câte o ieșire pentru fiecare intrare, "
            "în aceeași ordine (verificarea dă liste de lungimi diferite)."
        )
    for i, iesire in enumerate(rezultat):
        if iesire is None:
            raise GresealaCursant(f"Elementul {i} al listei e None: pune în listă ieșirea modelului.")
        if not isinstance(iesire, torch.Tensor):
            raise GresealaCursant(
                f"Elementul {i} al listei nu e un tensor, ci {type(iesire).__name__}: păstrează tensorul "
                "întreg (o copie a lui), nu .item() sau .tolist()."
            )


def _inspecteaza_iesirile(rezultat, asteptate: list[torch.Tensor], toleranta: dict, buffere,
                          asteptate_dupa: list[torch.Tensor]) -> None:
    """Aruncă `GresealaCursant` dacă ieșirile nu sunt copii independente, cu valorile așteptate.
    `buffere`: tampoanele statice ale modelului (cunoscute doar la imitație); `asteptate_dupa`:
    ieșirile apelurilor făcute de verificare după ce funcția cursantului s-a terminat."""
    for i in range(len(rezultat)):
        for j in range(i + 1, len(rezultat)):
            a, b = rezultat[i], rezultat[j]
            if a is b or (_tensor_obisnuit(a) and _tensor_obisnuit(b) and a.device == b.device
                          and a.data_ptr() == b.data_ptr()):
                nota_cpu = ""
                if a.device.type == "cpu":
                    nota_cpu = (
                        " Atenție: .detach() nu copiază memoria, iar pe CPU nici .cpu() sau .to(\"cpu\") "
                        "(tensorul e deja acolo); folosește .clone()."
                    )
                raise GresealaCursant(
                    f"Ieșirile {i} și {j} din listă sunt același tensor, la aceeași adresă de memorie, deci "
                    f"au aceleași valori: ale ultimului apel. {_EXPLICATIA_2}{nota_cpu}"
                )
    for i, iesire in enumerate(rezultat):
        if any(_aceeasi_memorie(iesire, buffer) for buffer in buffere):
            raise GresealaCursant(
                f"Ieșirea {i} din listă e chiar tamponul static în care modelul scrie la fiecare apel (sau "
                "o vedere a lui): după ce funcția ta se termină, modelul mai e apelat și o suprascrie. "
                f"Copiaz-o și pe ea. {_EXPLICATIA_2}"
            )
    ultima = asteptate[-1]
    suprascrise = [
        i for i, (iesire, asteptat) in enumerate(zip(rezultat, asteptate))
        if i < len(asteptate) - 1 and _apropiat(iesire, ultima, toleranta) and not _apropiat(iesire, asteptat, toleranta)
    ]
    if suprascrise:
        care = ", ".join(str(i) for i in suprascrise)
        raise GresealaCursant(
            f"Ieșirile pentru intrările {care} au valorile ultimei intrări: le-au suprascris apelurile "
            f"următoare, înainte să le copiezi. Copia trebuie făcută imediat după fiecare apel, nu la "
            f"final. {_EXPLICATIA_2}"
        )
    for i, (iesire, asteptat) in enumerate(zip(rezultat, asteptate)):
        if not _apropiat(iesire, asteptat, toleranta) and any(
            _apropiat(iesire, dupa, toleranta) for dupa in asteptate_dupa
        ):
            raise GresealaCursant(
                f"Ieșirea {i} s-a schimbat după ce funcția ta s-a terminat: are valorile unui apel al "
                "modelului făcut de verificare după ea, deci e memoria modelului, nu o copie. "
                f"{_EXPLICATIA_2}"
            )
    for i, (iesire, asteptat) in enumerate(zip(rezultat, asteptate)):
        compara_tensori(iesire, asteptat, f"ieșirea pentru intrarea {i}", **toleranta)


def _verifica_cu_model(ruleaza_tot, model, intrari: list[torch.Tensor], asteptate: list[torch.Tensor],
                       toleranta: dict, *, apeluri, buffere=lambda: (), dupa=(), asteptate_dupa=(),
                       limita_s: float = LIMITA_APEL_2_S) -> None:
    """Rulează `ruleaza_tot(model, intrari)`, verifică că modelul a fost apelat pe fiecare intrare,
    mai apelează modelul pe intrările `dupa` (pasul următor al celui care folosește ieșirile) și
    inspectează ieșirile. Traduce orice eroare apărută la citirea lor (de exemplu, o ieșire
    suprascrisă a unui model compilat). `apeluri()` spune câte apeluri a primit modelul."""
    inainte = apeluri()
    try:
        with torch.no_grad():
            rezultat = apeleaza(ruleaza_tot, model, [x.clone() for x in intrari], limita_s=limita_s,
                                ce="funcția ta `ruleaza_tot`")
    except GresealaCursant as greseala:
        if _e_suprascriere(greseala):
            raise GresealaCursant(
                _MESAJ_SUPRASCRIS_REAL + "S-a întâmplat chiar în codul tău: ai citit o ieșire după un apel "
                f"ulterior al modelului. {_EXPLICATIA_2}{_ORIGINAL_SUPRASCRIS}"
            ) from None
        raise
    facute = apeluri() - inainte
    _verifica_lista(rezultat, len(intrari))
    if facute < len(intrari):
        raise GresealaCursant(
            (f"Ai apelat modelul {_de_ori(facute)} pentru {cu_substantiv(len(intrari), 'intrare', 'intrări')}"
             if facute else "N-ai apelat deloc modelul primit")
            + ": apelează-l câte o dată pe fiecare intrare, ca bucla de la care pornești. Ce lipsește e "
            "copia fiecărei ieșiri, nu alt fel de a obține rezultatele."
        )
    try:
        with torch.no_grad():
            for x in dupa:
                model(x)
        _inspecteaza_iesirile(rezultat, asteptate, toleranta, list(buffere()), list(asteptate_dupa))
    except GresealaCursant as greseala:
        if _e_suprascriere(greseala):
            raise GresealaCursant(
                _MESAJ_SUPRASCRIS_REAL + "S-a întâmplat când am citit lista pe care ai întors-o: cel puțin "
                f"o ieșire din ea nu mai există. {_EXPLICATIA_2}{_ORIGINAL_SUPRASCRIS}"
            ) from None
        raise
    except Exception as eroare:  # citirea unei ieșiri a aruncat o eroare
        if _e_suprascriere(eroare):
            raise GresealaCursant(
                _MESAJ_SUPRASCRIS_REAL + "S-a întâmplat când am citit lista pe care ai întors-o: cel puțin "
                f"o ieșire din ea nu mai există. {_EXPLICATIA_2}{_ORIGINAL_SUPRASCRIS}"
            ) from None
        tradusa = traduce_exceptie(eroare)
        raise GresealaCursant(
            f"Când am citit ieșirile tale, PyTorch a aruncat {tradusa.tip}: {tradusa.explicatie}. Întoarce o "
            f"listă de tensori obișnuiți, câte o copie pentru fiecare intrare.{cu_originalul(tradusa)}"
        ) from None


_MODEL_COMPILAT: dict = {}


def _model_compilat_pe_gpu():
    """Rețeaua mică, compilată cu mode="reduce-overhead" și încălzită pe GPU, pe loturi de 2. Se
    compilează o singură dată pe sesiune (recompilările repetate ar atinge limita de
    recompilări), deci ponderile ei sunt fixe. Cu dynamic=False, un cursant care o apelează pe
    altă formă (toate intrările lipite într-un lot) primește un graf separat, iar cel pentru
    loturi de 2 rămâne cum era."""
    if "model" not in _MODEL_COMPILAT:
        modul = _retea_mica("cuda")
        compilat = torch.compile(modul, mode="reduce-overhead", dynamic=False)
        _MODEL_COMPILAT.update(modul=modul, model=compilat)
    modul, compilat = _MODEL_COMPILAT["modul"], _MODEL_COMPILAT["model"]
    with torch.no_grad():
        for x in _intrari(3, 2, "cuda", samanta=20):  # încălzire, capturare, prima reluare
            compilat(x)
    torch.cuda.synchronize()
    return modul, compilat


def _runda_imitatie(ruleaza_tot, aleator, dispozitiv, toleranta, numar: int, randuri: int) -> None:
    """O rundă cu `ModelCuIesireStatica`: o rețea cu ponderi noi, `numar` intrări de forma
    (randuri, 32)."""
    modul = _retea_mica(dispozitiv, _samanta(aleator))
    intrari = _intrari(numar, randuri, dispozitiv, _samanta(aleator))
    dupa = _intrari(2, randuri, dispozitiv, _samanta(aleator))
    with torch.no_grad():
        asteptate = [modul(x) for x in intrari]
        asteptate_dupa = [modul(x) for x in dupa]
    imitatie = ModelCuIesireStatica(modul)
    _verifica_cu_model(
        ruleaza_tot, ModelDeApelat(imitatie), intrari, asteptate, toleranta,
        apeluri=lambda: imitatie.apeluri, buffere=lambda: imitatie.buffere, dupa=dupa,
        asteptate_dupa=asteptate_dupa, limita_s=LIMITA_APEL_2_S,
    )


def _runda_compilat(ruleaza_tot, aleator, toleranta) -> None:
    """O rundă cu modelul compilat cu reduce-overhead adevărat, pe GPU (loturi de 2, forma cu
    care a fost încălzit, ca să nu se recompileze)."""
    try:
        modul, compilat = _model_compilat_pe_gpu()
    except Exception as eroare:
        tradusa = traduce_exceptie(eroare)
        raise GresealaCursant(
            "Soluția ta e corectă pe modelul care imită tamponul static, dar n-am reușit să compilez "
            f"modelul de verificare cu mode=\"reduce-overhead\" ({tradusa.tip}: {tradusa.explicatie}). "
            f"Repornește kernel-ul Jupyter și rulează din nou.{cu_originalul(tradusa)}"
        ) from None
    intrari = _intrari(aleator.randint(2, 7), 2, "cuda", _samanta(aleator))
    dupa = _intrari(2, 2, "cuda", _samanta(aleator))
    with torch.no_grad():
        asteptate = [modul(x) for x in intrari]
        asteptate_dupa = [modul(x) for x in dupa]
    stare = {"apeluri": 0}

    def apel(x):
        stare["apeluri"] += 1
        return compilat(x)

    _verifica_cu_model(
        ruleaza_tot, ModelDeApelat(apel), intrari, asteptate, toleranta, apeluri=lambda: stare["apeluri"],
        dupa=dupa, asteptate_dupa=asteptate_dupa, limita_s=LIMITA_APEL_2_COMPILAT_S,
    )


def exercitiul_2(ruleaza_tot) -> Rezultat:
    """Verifică `ruleaza_tot(model, intrari) -> list`: câte o ieșire pentru fiecare intrare,
    corectă chiar dacă `model` își refolosește memoria de ieșire de la un apel la altul.

    Două runde cu `ModelCuIesireStatica` (pe CPU sau GPU), cu ponderi, număr de intrări și forme
    alese aleator, și, pe GPU, una cu `torch.compile(model, mode="reduce-overhead")` adevărat. În
    fiecare rundă: modelul trebuie apelat pe fiecare intrare; după ce funcția se termină,
    verificarea mai apelează modelul (pasul următor), apoi cere ca fiecare ieșire să fie o copie
    independentă (nu tamponul static, nu aceeași memorie cu alta), cu tipul, dispozitivul și
    valorile așteptate.

    Greșelile le prinde `ModelCuIesireStatica`, mereu la fel. Modelul compilat adevărat e o
    confirmare în plus: el suprascrie ieșirile doar cât timp fiecare apel e un pas nou; după ce
    s-a apelat o dată `torch.compiler.cudagraph_mark_step_begin()` în proces, apelurile din același
    pas primesc memorie nouă și o soluție fără copii ar trece de el."""

    def corp():
        if not callable(ruleaza_tot):
            apeleaza(ruleaza_tot)  # mesajul comun pentru ceva ce nu e funcție
        aleator = generator_aleator()
        dispozitiv = torch.device("cuda" if torch.cuda.is_available() else "cpu")
        toleranta = _toleranta(dispozitiv)
        numere = aleator.sample(range(2, 8), 2)
        for numar, randuri in zip(numere, aleator.sample(range(1, 7), 2)):
            _runda_imitatie(ruleaza_tot, aleator, dispozitiv, toleranta, numar, randuri)
        liste = f"liste de {format_numar(numere[0])} și de {format_numar(numere[1])} intrări"
        if dispozitiv.type != "cuda":
            return (
                f"Fiecare ieșire are memoria ei, deci supraviețuiește apelurilor următoare (verificat pe {liste}, "
                "cu un model care își refolosește tamponul de ieșire). Copia costă puțin față de tot "
                "modelul, dar fă-o doar pentru ieșirile pe care le păstrezi după apelul următor."
            )
        _runda_compilat(ruleaza_tot, aleator, toleranta)
        return (
            f"Fiecare ieșire are memoria ei, deci supraviețuiește apelurilor următoare (verificat pe {liste}), "
            "și cu modelul compilat cu torch.compile(mode=\"reduce-overhead\") adevărat, pe GPU. Copia costă "
            "puțin față de tot modelul, dar fă-o doar pentru ieșirile pe care le păstrezi după apelul următor."
        )

    limita = LIMITA_VERIFICARE_2_GPU_S if torch.cuda.is_available() else LIMITA_VERIFICARE_2_S
    return verificare("Exercițiul 2", corp, limita_s=limita)


# ---------------------------------------------------------------------------------------------
# Exercițiul 3: la ce loturi merită reduce-overhead
# ---------------------------------------------------------------------------------------------

#: Măsurători de exemplu (timpi în secunde, pe un GPU), {lot: (timp_eager, timp_reduce_overhead)}:
#: la loturi mici câștigul e mare (costul lansării domină), la loturi mari dispare.
MASURATORI_EXEMPLU = {
    1: (0.00412, 0.00105),
    2: (0.00415, 0.00108),
    4: (0.00421, 0.00131),
    8: (0.00436, 0.00262),
    16: (0.00587, 0.00470),
    32: (0.01010, 0.00935),
    64: (0.01920, 0.01890),
    128: (0.03710, 0.03850),
}

_PRAG_IMPLICIT = 1.2
_LOTURI_POSIBILE = (1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192, 256, 384, 512)
_PRAGURI_POSIBILE = (1.05, 1.1, 1.15, 1.25, 1.3, 1.5, 1.75, 2.0, 2.5, 3.0)
#: Distanțele relative față de prag ale loturilor „chiar peste” și „chiar sub” prag: mai mici de
#: 1%, ca un răspuns care mută pragul cu 1% (sau cu 0,1%) să nu arate ca o greșeală anume.
_DISTANTE_LA_PRAG = (1e-4, 5e-4, 2e-3, 6e-3)


def _lot_exact_la_prag(prag: float, aleator) -> tuple[float, float]:
    """Timpi (e, r) cu accelerarea exact egală cu pragul, și în virgulă mobilă, în toate formele
    corecte ale comparației: e / r == prag, e == prag * r, r / e == 1 / prag, e / prag == r,
    (e - r) / r >= prag - 1, 1 / (r / e) >= prag."""
    for _ in range(10_000):
        r = round(aleator.uniform(0.0005, 0.02), 5)
        e = prag * r
        if (
            e / r == prag and r / e == 1 / prag and e / prag == r and (e - r) / r >= prag - 1
            and 1 / (r / e) >= prag and e >= r * prag
        ):
            return e, r
    raise RuntimeError(f"n-am găsit timpi exact la pragul {prag}")  # nu se întâmplă: ~50% reușesc


def _timpi(accelerare: float, aleator) -> tuple[float, float]:
    r = aleator.uniform(0.0005, 0.02)
    return r * accelerare, r


def _set_aleator(aleator, prag: float, roluri: list[str], distante=_DISTANTE_LA_PRAG) -> dict:
    """Un dicționar de măsurători: câte un lot (crescător) pentru fiecare rol din `roluri`, cu
    accelerarea cerută de rol (la „peste” și „sub”, la o distanță relativă de prag aleasă din
    `distante`); cheile puse în dicționar într-o ordine amestecată."""
    loturi = sorted(aleator.sample(_LOTURI_POSIBILE, len(roluri)))
    masuratori = {}
    for lot, rol in zip(loturi, roluri):
        if rol == "exact":
            masuratori[lot] = _lot_exact_la_prag(prag, aleator)
            continue
        distanta = aleator.choice(distante)
        accelerare = {
            "mult_peste": prag * aleator.uniform(1.3, 3.0),
            "peste": prag * (1 + distanta),
            "sub": prag * (1 - distanta),
            "mult_sub": prag * aleator.uniform(0.6, 0.9),
            "lent": aleator.uniform(0.5, 0.9) / prag,  # reduce-overhead mai lent de peste prag ori
        }[rol]
        masuratori[lot] = _timpi(accelerare, aleator)
    chei = list(masuratori)
    while len(chei) > 1 and chei == sorted(chei):
        aleator.shuffle(chei)
    return {lot: masuratori[lot] for lot in chei}


def _cazuri_3(aleator) -> list[tuple[str, dict, float | None]]:
    """Seturile de măsurători ale unei verificări: (descriere, măsurători, prag; None = pragul
    implicit). Exemplul din enunț, apoi seturi noi la fiecare rulare, alese ca fiecare greșeală
    tipică să dea alt răspuns decât cel corect: loturi exact la prag și foarte aproape de el (sub
    1%), o scădere sub prag urmată de o revenire, loturi la care reduce-overhead e mai lent,
    chei nesortate, praguri date mai mici și mai mari decât 1,2."""

    def zgomot(prag):
        mijloc = ["exact", "peste", "sub"]
        aleator.shuffle(mijloc)
        roluri = ["mult_peste"] * aleator.randint(1, 2) + ["mult_sub"] + mijloc
        return roluri + ["mult_sub"] * aleator.randint(0, 1) + ["lent"] * aleator.randint(1, 2)

    mici = [p for p in _PRAGURI_POSIBILE if p < _PRAG_IMPLICIT]
    mari = [p for p in _PRAGURI_POSIBILE if p > _PRAG_IMPLICIT]
    prag_mic, prag_mare = aleator.choice(mici), aleator.choice(mari)
    return [
        ("măsurătorile de exemplu", MASURATORI_EXEMPLU, None),
        # Aici, loturile „chiar peste” și „chiar sub” prag sunt la cea mai mică distanță (0,01%): un prag
        # mutat cu 0,1% le desparte de „>” în loc de „>=”, pe orice sămânță.
        ("măsurători cu zgomot, unde accelerarea nu scade monoton",
         _set_aleator(aleator, _PRAG_IMPLICIT, zgomot(_PRAG_IMPLICIT), distante=_DISTANTE_LA_PRAG[:1]), None),
        ("măsurători cu zgomot, cu un prag mai mic", _set_aleator(aleator, prag_mic, zgomot(prag_mic)), prag_mic),
        ("măsurători cu zgomot, cu un prag mai mare", _set_aleator(aleator, prag_mare, zgomot(prag_mare)), prag_mare),
        ("măsurători unde niciun lot nu trece pragul",
         _set_aleator(aleator, _PRAG_IMPLICIT, ["mult_sub", "sub", "mult_sub", "lent"]), None),
        ("măsurători unde toate loturile trec pragul",
         _set_aleator(aleator, _PRAG_IMPLICIT, ["mult_peste", "exact", "peste", "mult_peste"]), None),
    ]


def _rentabile(masuratori: dict, prag: float, conditie=None) -> list:
    """Loturile, sortate, pentru care `conditie(timp_eager, timp_reduce_overhead, prag)` e adevărată."""
    if conditie is None:
        conditie = lambda e, r, p: e / r >= p  # noqa: E731
    return sorted(lot for lot, (e, r) in masuratori.items() if conditie(e, r, prag))


def _pana_la_primul_sub_prag(masuratori: dict, prag: float, ordine) -> list:
    rezultat = []
    for lot in ordine:
        e, r = masuratori[lot]
        if e / r < prag:
            break
        rezultat.append(lot)
    return sorted(rezultat)


_PASUL_3 = (
    "Accelerarea unui lot e timp_eager / timp_reduce_overhead (de câte ori e mai rapid "
    "reduce-overhead), iar lotul merită dacă accelerarea >= prag."
)

# (ipoteză, mesaj): greșelile tipice. O greșeală e numită doar dacă răspunsurile date pe TOATE
# seturile de măsurători sunt exact cele ale ipotezei; seturile sunt alese ca ipotezele să difere
# între ele și de răspunsul corect (vezi `_cazuri_3`).
_IPOTEZE_3 = [
    (
        lambda m, p: _rentabile(m, p, lambda e, r, p: r / e >= p),
        "Ai luat raportul pe dos (timp_reduce_overhead / timp_eager): ai întors loturile unde "
        f"reduce-overhead e mai LENT. {_PASUL_3}",
    ),
    (
        lambda m, p: _rentabile(m, p, lambda e, r, p: e / r <= p),
        f"Ai inversat comparația: ai întors loturile care NU trec pragul. {_PASUL_3}",
    ),
    (
        lambda m, p: _rentabile(m, p, lambda e, r, p: e / r < p),
        f"Ai inversat comparația: ai întors loturile care NU trec pragul. {_PASUL_3}",
    ),
    (
        lambda m, p: _rentabile(m, p, lambda e, r, p: e / r > p),
        "Ai folosit > în loc de >=: un lot cu accelerarea exact egală cu pragul trebuie inclus "
        "(„cel puțin prag”).",
    ),
    (
        lambda m, p: _rentabile(m, _PRAG_IMPLICIT),
        "Ignori argumentul prag: cu un prag dat de mine ai întors răspunsul pentru prag=1.2. Compară cu "
        "variabila prag, nu cu numărul 1.2 scris de mână.",
    ),
    (
        lambda m, p: _rentabile(m, p, lambda e, r, p: (e - r) / r >= p),
        "Ai comparat cu pragul câștigul relativ, (timp_eager − timp_reduce_overhead) / "
        f"timp_reduce_overhead, care e cu 1 mai mic decât accelerarea. {_PASUL_3}",
    ),
    (
        lambda m, p: _pana_la_primul_sub_prag(m, p, sorted(m)),
        "Te-ai oprit la primul lot sub prag, ca și cum accelerarea ar scădea mereu cu lotul. "
        "Măsurătorile au zgomot: un lot din mijloc poate coborî sub prag, iar următorul poate urca "
        "din nou peste. Verifică fiecare lot, fără break.",
    ),
    (
        lambda m, p: _pana_la_primul_sub_prag(m, p, list(m)),
        "Te-ai oprit la primul lot sub prag. Cheile dicționarului nu vin neapărat în ordine "
        "crescătoare, iar accelerarea nu scade neapărat monoton: verifică fiecare lot, fără break, "
        "apoi sortează.",
    ),
]


def _accelerari(masuratori: dict) -> dict:
    return {lot: e / r for lot, (e, r) in masuratori.items()}


def _text_accelerari(masuratori: dict, loturi=None) -> str:
    accelerari = _accelerari(masuratori)
    return ", ".join(
        f"{format_numar(lot)}: {numar_precis(accelerari[lot])}×" for lot in sorted(loturi if loturi is not None else accelerari)
    )


def _cu_prag(prag) -> str:
    return f"cu prag={prag}" if prag is not None else f"cu pragul implicit, prag={_PRAG_IMPLICIT}"


def _verifica_semnatura_3(functie) -> None:
    try:
        semnatura = inspect.signature(functie)
    except (TypeError, ValueError):
        return
    try:
        semnatura.bind({}, _PRAG_IMPLICIT)
    except TypeError:
        raise GresealaCursant(
            "Funcția trebuie să primească și pragul: def batch_uri_rentabile(masuratori, prag=1.2)."
        ) from None
    try:
        semnatura.bind({})
    except TypeError:
        raise GresealaCursant(
            "Dă-i lui prag valoarea implicită 1.2, ca funcția să meargă și fără el: "
            "def batch_uri_rentabile(masuratori, prag=1.2)."
        ) from None
    parametri = list(semnatura.parameters.values())
    if len(parametri) >= 2 and parametri[1].kind in (
        inspect.Parameter.POSITIONAL_ONLY,
        inspect.Parameter.POSITIONAL_OR_KEYWORD,
    ):
        implicit = parametri[1].default
        if (
            isinstance(implicit, numbers.Real)
            and not isinstance(implicit, bool)
            and not math.isclose(float(implicit), _PRAG_IMPLICIT)
        ):
            raise GresealaCursant(
                f"Valoarea implicită a lui prag e {implicit}, dar trebuie 1.2: "
                "def batch_uri_rentabile(masuratori, prag=1.2)."
            )


def _lista_de_loturi(rezultat, masuratori: dict) -> list:
    """Verifică forma răspunsului (listă sau tuplu de int) și îl întoarce ca listă."""
    if rezultat is None:
        raise GresealaCursant("Funcția a întors None: ai uitat `return`?")
    if isinstance(rezultat, dict):
        raise GresealaCursant(
            "Ai întors un dicționar; trebuie doar lista dimensiunilor de lot care merită, sortată "
            "crescător, de exemplu [1, 2, 4]."
        )
    if isinstance(rezultat, (set, frozenset)):
        raise GresealaCursant(
            "Ai întors o mulțime (set), care nu are ordine. Întoarce o listă sortată crescător: "
            "sorted(...)."
        )
    if not isinstance(rezultat, (list, tuple)):
        raise GresealaCursant(
            f"Trebuia o listă de dimensiuni de lot, dar am primit {type(rezultat).__name__}."
        )
    accelerari = list(_accelerari(masuratori).values())
    for element in rezultat:
        if isinstance(element, (tuple, list)):
            raise GresealaCursant(
                f"Lista conține perechi (de exemplu {element!r}); trebuie doar dimensiunea lotului, "
                "cheia din dicționar."
            )
        if isinstance(element, numbers.Integral) and not isinstance(element, bool):
            continue
        if isinstance(element, numbers.Real) and not isinstance(element, bool) and any(
            math.isclose(float(element), a, rel_tol=1e-6) for a in accelerari
        ):
            raise GresealaCursant(
                f"Ai întors accelerările (de exemplu {numar_precis(float(element))}), nu dimensiunile "
                "loturilor: pune în listă cheia lotului, nu raportul timpilor."
            )
        raise GresealaCursant(
            f"Elementele listei trebuie să fie dimensiuni de lot (int, cheile dicționarului), dar am "
            f"găsit {element!r} ({type(element).__name__})."
        )
    return [int(element) for element in rezultat]


def _respinge(mesaj: str, caz: tuple, raspuns: list, asteptat: list):
    descriere, masuratori, prag = caz
    lipsa = [lot for lot in asteptat if lot not in raspuns]
    in_plus = [lot for lot in raspuns if lot not in asteptat and lot in masuratori]
    detalii = []
    if lipsa:
        detalii.append(f"îți lipsesc {_text_accelerari(masuratori, lipsa)}")
    if in_plus:
        detalii.append(f"ai în plus {_text_accelerari(masuratori, in_plus)}")
    raise GresealaCursant(
        f"{mesaj}\nPe {descriere} ({_cu_prag(prag)}) trebuia {asteptat}, dar ai întors {raspuns}"
        + (f" ({'; '.join(detalii)})" if detalii else "")
        + f". Accelerările tuturor loturilor sunt: {_text_accelerari(masuratori)}."
    )


def exercitiul_3(batch_uri_rentabile) -> Rezultat:
    """Verifică `batch_uri_rentabile(masuratori, prag=1.2)`: lista sortată a loturilor cu
    timp_eager / timp_reduce_overhead >= prag, pe exemplul din enunț și pe seturi de măsurători
    noi la fiecare rulare (vezi `_cazuri_3`). Numește o greșeală tipică doar dacă răspunsurile
    de pe toate seturile sunt exact ale ei; altfel arată primul set greșit, cu loturile care
    lipsesc sau sunt în plus."""

    def corp():
        if not callable(batch_uri_rentabile):
            apeleaza(batch_uri_rentabile)  # mesajul comun pentru ceva ce nu e funcție
        _verifica_semnatura_3(batch_uri_rentabile)
        cazuri = _cazuri_3(generator_aleator())
        raspunsuri, asteptate = [], []
        for descriere, masuratori, prag in cazuri:
            argumente = (dict(masuratori),) if prag is None else (dict(masuratori), prag)
            rezultat = apeleaza(batch_uri_rentabile, *argumente, limita_s=LIMITA_APEL_3_S,
                                ce="funcția ta `batch_uri_rentabile`")
            loturi = _lista_de_loturi(rezultat, masuratori)
            asteptat = _rentabile(masuratori, _PRAG_IMPLICIT if prag is None else prag)
            if loturi != asteptat and sorted(loturi) == asteptat:
                raise GresealaCursant(
                    f"Loturile sunt cele bune, dar nu sunt sortate crescător ({loturi}). Cheile unui "
                    "dicționar vin în ordinea în care au fost puse, nu neapărat crescător: întoarce "
                    "sorted(...)."
                )
            straine = [lot for lot in loturi if lot not in masuratori]
            if straine:
                raise GresealaCursant(
                    f"Ai întors lotul {straine[0]}, care nu e o cheie a dicționarului primit (pe {descriere}, "
                    f"{_cu_prag(prag)}, loturile sunt {sorted(masuratori)}): lista trebuie calculată din "
                    "dicționarul masuratori, nu scrisă de mână."
                )
            if len(set(loturi)) != len(loturi):
                raise GresealaCursant(
                    f"Lista ta conține de mai multe ori același lot ({loturi}): fiecare lot apare o singură dată."
                )
            raspunsuri.append(sorted(loturi))
            asteptate.append(asteptat)
        gresite = [i for i, (r, a) in enumerate(zip(raspunsuri, asteptate)) if r != a]
        if not gresite:
            return (
                f"Corect pe {cu_substantiv(len(cazuri), 'set', 'seturi')} de măsurători, cu loturi exact la "
                "prag și foarte aproape de el. Alegi loturile după măsurători, nu după o regulă presupusă. "
                "Câștigul din reduce-overhead vine din costul lansării, care contează la loturi mici, când "
                "GPU-ul așteaptă procesorul, și se stinge la loturi mari, unde lucrul din fiecare kernel domină."
            )
        i = gresite[0]
        # 1. O greșeală tipică, aceeași pe toate seturile de măsurători.
        for ipoteza, mesaj in _IPOTEZE_3:
            if all(r == ipoteza(m, _PRAG_IMPLICIT if p is None else p) for r, (_, m, p) in zip(raspunsuri, cazuri)):
                _respinge(mesaj, cazuri[i], raspunsuri[i], asteptate[i])
        # 2. Același răspuns peste tot, deși loturile rentabile diferă de la un set la altul.
        if len({tuple(r) for r in raspunsuri}) == 1:
            if not raspunsuri[0]:
                _respinge(
                    "Ai întors o listă goală pe toate seturile de măsurători, deși pe unele accelerarea "
                    f"trece pragul. {_PASUL_3}", cazuri[i], raspunsuri[i], asteptate[i],
                )
            _respinge(
                f"Ai întors același răspuns, {raspunsuri[0]}, pentru toate seturile de măsurători, deși "
                "loturile rentabile diferă de la un set la altul: calculează lista din dicționarul "
                "masuratori.", cazuri[i], raspunsuri[i], asteptate[i],
            )
        # 3. Altfel, primul set greșit, fără să ghicesc cauza.
        _respinge(f"Răspunsul nu e cel așteptat. {_PASUL_3}", cazuri[i], raspunsuri[i], asteptate[i])

    return verificare("Exercițiul 3", corp, limita_s=LIMITA_VERIFICARE_3_S)
