"""Verificările exercițiilor din capitolul 04 — „CUDA Graphs (grafuri CUDA) și
torch.compile(mode="reduce-overhead")”.

- Exercițiul 1: pasul de reluare al unui graf CUDA capturat de mână (copiezi intrarea în
  bufferul static, reiei graful, păstrezi o copie a ieșirii).
- Exercițiul 2: ieșirile unui model care își refolosește memoria de ieșire de la un apel la
  altul, cum face un model compilat cu mode="reduce-overhead".
- Exercițiul 3: loturile (*batch*) la care reduce-overhead merită, după măsurători.

Verificările rulează și pe o mașină fără GPU: acolo graful CUDA și bufferul static de ieșire
sunt imitate de `GrafSimulat` și `ModelCuIesireStatica`, cu aceeași semantică a memoriei. Pe un
GPU, exercițiile 1 și 2 folosesc și lucrul adevărat (`torch.cuda.CUDAGraph`, respectiv
`torch.compile(mode="reduce-overhead")`).
"""

from __future__ import annotations

import inspect
import math
import numbers

import torch
from torch import nn

from ..cifre import format_numar
from .baza import GresealaCursant, Rezultat, apeleaza, compara_tensori, verificare

__all__ = [
    "exercitiul_1",
    "exercitiul_2",
    "exercitiul_3",
    "GrafSimulat",
    "ModelCuIesireStatica",
    "MASURATORI_EXEMPLU",
]

_LATIME = 32


def _retea_mica(dispozitiv="cpu") -> nn.Module:
    """Rețeaua mică a exercițiilor: 3 × (Linear(32, 32), GELU), cu ponderi fixe, în modul eval.
    Generatorul global al cursantului nu e atins."""
    with torch.random.fork_rng(devices=[]):
        torch.manual_seed(4)
        straturi = [strat for _ in range(3) for strat in (nn.Linear(_LATIME, _LATIME), nn.GELU())]
        retea = nn.Sequential(*straturi)
    return retea.to(dispozitiv).eval()


def _intrari(numar: int, randuri: int, dispozitiv, samanta: int) -> list[torch.Tensor]:
    generator = torch.Generator().manual_seed(samanta)
    return [torch.randn(randuri, _LATIME, generator=generator).to(dispozitiv) for _ in range(numar)]


def _toleranta(dispozitiv) -> dict:
    """Pe GPU, eager și graful (sau kernel-urile generate) pot folosi TF32 dacă l-ai activat."""
    if torch.device(dispozitiv).type == "cuda":
        return {"rtol": 1e-2, "atol": 1e-3}
    return {"rtol": 1e-4, "atol": 1e-5}


def _apropiat(a: torch.Tensor, b: torch.Tensor, toleranta: dict) -> bool:
    return a.shape == b.shape and bool(torch.allclose(a.to(b.device, b.dtype), b, **toleranta))


def _aceeasi_memorie(a: torch.Tensor, b: torch.Tensor) -> bool:
    """Adevărat dacă `a` și `b` stau în aceeași zonă de memorie (unul e o vedere a celuilalt)."""
    return a.device == b.device and a.untyped_storage().data_ptr() == b.untyped_storage().data_ptr()


# ---------------------------------------------------------------------------------------------
# Exercițiul 1: reluarea unui graf CUDA capturat de mână
# ---------------------------------------------------------------------------------------------


class GrafSimulat:
    """Imită un graf CUDA capturat, pe o mașină fără GPU.

    Un graf CUDA capturat ține minte adresele de memorie pe care le-a folosit la capturare:
    la fiecare reluare citește intrarea de la adresa lui `x_static` și scrie ieșirea la adresa
    lui `y_static`, oricare ar fi numele pe care le folosești tu în Python. `GrafSimulat(model,
    x_static)` face la fel: la creare („capturarea”) calculează o dată modelul și păstrează
    bufferul static de ieșire `y_static`; `replay()` citește memoria lui `x_static` și scrie
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


class _GrafCuNumarator:
    """Învelește un graf (CUDA sau simulat) și numără apelurile lui `replay()`."""

    def __init__(self, graf):
        self._graf = graf
        self.reluari = 0

    def replay(self) -> None:
        self.reluari += 1
        self._graf.replay()

    def __getattr__(self, nume):
        return getattr(self._graf, nume)


def _captureaza_pe_gpu(model, x_static: torch.Tensor):
    """Încălzire pe un stream separat, apoi capturarea modelului într-un `torch.cuda.CUDAGraph`.
    Întoarce graful și bufferul static de ieșire, deja completat de o reluare."""
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


def exercitiul_1(reia) -> Rezultat:
    """Verifică `reia(graf, x_static, y_static, x_nou)`, pasul de reluare al unui graf capturat:
    trebuie să copieze `x_nou` în `x_static`, să apeleze `graf.replay()` și să întoarcă o copie a
    lui `y_static`. Pe GPU folosește un `torch.cuda.CUDAGraph` adevărat, pe CPU un `GrafSimulat`.
    Rezultatele celor trei apeluri sunt comparate cu modelul eager abia după toate apelurile,
    ca să se vadă și un rezultat suprascris de o reluare ulterioară."""

    def corp():
        if not callable(reia):
            apeleaza(reia)  # mesajul comun pentru ceva ce nu e funcție
        dispozitiv = torch.device("cuda" if torch.cuda.is_available() else "cpu")
        toleranta = _toleranta(dispozitiv)
        model = _retea_mica(dispozitiv)
        x_static = _intrari(1, 4, dispozitiv, samanta=10)[0]
        if dispozitiv.type == "cuda":
            graf_brut, y_static = _captureaza_pe_gpu(model, x_static)
        else:
            graf_brut = GrafSimulat(model, x_static)
            y_static = graf_brut.y_static
        graf = _GrafCuNumarator(graf_brut)
        adresa_x = x_static.data_ptr()
        with torch.no_grad():
            initial = model(x_static.clone())  # ce conține y_static înaintea primului apel

        intrari = _intrari(3, 4, dispozitiv, samanta=11)
        rezultate, instantanee = [], []
        for i, x_nou in enumerate(intrari, start=1):
            inainte = graf.reluari
            rezultat = apeleaza(reia, graf, x_static, y_static, x_nou.clone())
            if graf.reluari == inainte:
                raise GresealaCursant(
                    f"N-ai apelat graf.replay() (la apelul {i}): fără reluare, graful nu rulează și "
                    "y_static nu primește rezultatul intrării noi. Dacă ai calculat rezultatul apelând "
                    "direct modelul, asta e execuția eager, operație cu operație: exact costul "
                    f"lansării (*launch overhead*) pe care graful îl elimină. {_PASII_1}"
                )
            if x_static.data_ptr() != adresa_x:
                raise GresealaCursant(
                    "Ai schimbat memoria din spatele lui x_static (cu .data = ... sau .set_(...)): graful "
                    "capturat citește în continuare de la adresa veche, deci nu vede intrarea nouă. "
                    "Copiază valorile pe loc, în aceeași memorie: x_static.copy_(x_nou)."
                )
            if not torch.equal(x_static, x_nou):
                raise GresealaCursant(
                    f"După apelul {i}, x_static nu conține valorile lui x_nou, deci graful a calculat tot "
                    "pe intrarea veche. Graful capturat citește mereu de la aceeași adresă de memorie, "
                    "cea a lui x_static; `x_static = x_nou` doar leagă numele local x_static de alt tensor "
                    "și nu schimbă nimic în memoria pe care o citește graful. Copiază valorile pe loc: "
                    "x_static.copy_(x_nou)."
                )
            if rezultat is None:
                raise GresealaCursant("Funcția a întors None: ai uitat `return y_static.clone()`?")
            if not isinstance(rezultat, torch.Tensor):
                raise GresealaCursant(
                    f"Trebuia un tensor (o copie a lui y_static), dar am primit {type(rezultat).__name__}."
                )
            if _aceeasi_memorie(rezultat, y_static):
                raise GresealaCursant(
                    "Întorci chiar bufferul static y_static (sau o vedere a lui, cu aceeași memorie): "
                    "următoarea reluare a grafului îl suprascrie, iar rezultatul pe care l-ai dat deja se "
                    "schimbă sub ochii celui care îl folosește. Întoarce o copie: return y_static.clone()."
                )
            rezultate.append(rezultat)
            instantanee.append(rezultat.detach().clone())

        if dispozitiv.type == "cuda":
            torch.cuda.synchronize()
        for i, (rezultat, instantaneu) in enumerate(zip(rezultate, instantanee), start=1):
            if rezultat.shape != instantaneu.shape or not torch.equal(rezultat, instantaneu):
                raise GresealaCursant(
                    f"Rezultatul apelului {i} s-a schimbat după apelurile următoare: întorci o memorie pe "
                    "care reluările următoare o suprascriu. Întoarce la fiecare apel o copie nouă: "
                    "return y_static.clone()."
                )
        with torch.no_grad():
            asteptate = [model(x) for x in intrari]
        precedente = [initial] + asteptate[:-1]  # ieșirea intrării de dinainte de fiecare apel
        for i, (rezultat, asteptat, precedent) in enumerate(zip(rezultate, asteptate, precedente), start=1):
            if _apropiat(rezultat, asteptat, toleranta):
                continue
            if _apropiat(rezultat, precedent, toleranta):
                raise GresealaCursant(
                    f"Rezultatul apelului {i} e ieșirea intrării precedente: ai copiat y_static înainte de "
                    "graf.replay() (sau ai copiat intrarea după reluare). Ordinea contează: întâi "
                    "x_static.copy_(x_nou), apoi graf.replay(), abia apoi y_static.clone()."
                )
            if rezultat.device != asteptat.device:
                rezultat = rezultat.to(asteptat.device)  # o copie pe alt dispozitiv e tot o copie
            compara_tensori(rezultat, asteptat, f"apelul {i}", **toleranta)
        unde = "un graf CUDA adevărat" if dispozitiv.type == "cuda" else "un graf simulat (mașina n-are GPU)"
        return (
            f"Trei intrări noi, trei rezultate corecte, pe {unde}. O reluare lansează tot "
            "graful dintr-o dată, nu câte un kernel pe operație. torch.compile(mode=\"reduce-overhead\") "
            "face singur copierea intrării și reluarea, dar nu și copia ieșirii: despre asta e "
            "exercițiul următor."
        )

    return verificare("Exercițiul 1", corp)


# ---------------------------------------------------------------------------------------------
# Exercițiul 2: ieșiri care supraviețuiesc apelului următor
# ---------------------------------------------------------------------------------------------


class ModelCuIesireStatica:
    """Imită ieșirea unui model compilat cu mode="reduce-overhead", pe CPU sau pe GPU.

    Un astfel de model rulează, la fiecare apel, o reluare a grafului CUDA, care scrie rezultatul
    mereu în același buffer static de ieșire. `ModelCuIesireStatica(model)` face la fel: calculează
    `model(x)` și copiază rezultatul într-un singur buffer, alocat la primul apel, pe care îl
    întoarce de fiecare dată. Un tensor primit la un apel își schimbă deci valorile la apelul
    următor, exact ca ieșirea unui model compilat cu reduce-overhead (care, în plus, te oprește cu
    o eroare dacă citești o ieșire suprascrisă).
    """

    def __init__(self, model):
        self.model = model
        self.apeluri = 0
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
        iesire.copy_(rezultat)
        self.apeluri += 1
        return iesire


_EXPLICATIA_2 = (
    "Un model compilat cu mode=\"reduce-overhead\" scrie, la fiecare reluare a grafului CUDA, "
    "ieșirea în același buffer static, așa că apelul următor o suprascrie pe cea dinainte. Păstrează "
    "câte o copie a fiecărei ieșiri: model(x).clone() (sau model(x).detach().clone()). "
    "torch.compiler.cudagraph_mark_step_begin() doar marchează începutul unui pas nou; nu ține în "
    "viață ieșirile vechi, deci singur nu ajunge: tot trebuie să le copiezi."
)

_MESAJ_SUPRASCRIS_REAL = (
    "PyTorch a refuzat să citească o ieșire a modelului compilat: „accessing tensor output of "
    "CUDAGraphs that has been overwritten by a subsequent run”, adică ieșirea a fost suprascrisă "
    "de un apel ulterior. În loc să-ți dea în tăcere valori greșite, torch.compile te oprește. "
)


def _e_suprascriere(eroare: BaseException | str) -> bool:
    return "overwritten" in str(eroare)


def _inspecteaza_iesirile(rezultat, asteptate: list[torch.Tensor], toleranta: dict) -> None:
    """Ridică `GresealaCursant` dacă lista de ieșiri nu e cea așteptată (tip, lungime, memorie
    comună, valori)."""
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
    if len(rezultat) != len(asteptate):
        raise GresealaCursant(
            f"Lista ta are {len(rezultat)} elemente, dar ai primit {len(asteptate)} intrări: trebuie câte "
            "o ieșire pentru fiecare intrare, în aceeași ordine."
        )
    for i, iesire in enumerate(rezultat):
        if iesire is None:
            raise GresealaCursant(f"Elementul {i} al listei e None: pune în listă ieșirea modelului.")
        if not isinstance(iesire, torch.Tensor):
            raise GresealaCursant(
                f"Elementul {i} al listei nu e un tensor, ci {type(iesire).__name__}: păstrează tensorul "
                "întreg (o copie a lui), nu .item() sau .tolist()."
            )
    for i in range(len(rezultat)):
        for j in range(i + 1, len(rezultat)):
            a, b = rezultat[i], rezultat[j]
            if a is b or (a.device == b.device and a.data_ptr() == b.data_ptr()):
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
    ultima = asteptate[-1]
    suprascrise, prima_gresita = [], None
    for i, (iesire, asteptat) in enumerate(zip(rezultat, asteptate)):
        if _apropiat(iesire, asteptat, toleranta):
            continue
        if i < len(asteptate) - 1 and _apropiat(iesire, ultima, toleranta):
            suprascrise.append(i)
        elif prima_gresita is None:
            prima_gresita = i
    if suprascrise:
        care = ", ".join(str(i) for i in suprascrise)
        raise GresealaCursant(
            f"Ieșirile pentru intrările {care} au valorile ultimei intrări: le-au suprascris apelurile "
            f"următoare, înainte să le copiezi. Copia trebuie făcută imediat după fiecare apel, nu la "
            f"final. {_EXPLICATIA_2}"
        )
    if prima_gresita is not None:
        iesire, asteptat = rezultat[prima_gresita], asteptate[prima_gresita]
        if iesire.device != asteptat.device:
            iesire = iesire.to(asteptat.device)  # o copie pe alt dispozitiv (.cpu()) e în regulă
        compara_tensori(iesire, asteptat, f"ieșirea pentru intrarea {prima_gresita}", **toleranta)


def _verifica_cu_model(ruleaza_tot, model, intrari: list[torch.Tensor], asteptate: list[torch.Tensor], toleranta: dict) -> None:
    """Rulează `ruleaza_tot(model, intrari)` și inspectează ieșirile; traduce orice eroare apărută
    la citirea lor (de exemplu, o ieșire suprascrisă a unui model compilat)."""
    try:
        with torch.no_grad():
            rezultat = apeleaza(ruleaza_tot, model, list(intrari))
    except GresealaCursant as greseala:
        if _e_suprascriere(greseala):
            raise GresealaCursant(
                _MESAJ_SUPRASCRIS_REAL + "S-a întâmplat chiar în codul tău: ai citit o ieșire după un apel "
                f"ulterior al modelului. {_EXPLICATIA_2}"
            ) from None
        raise
    try:
        _inspecteaza_iesirile(rezultat, asteptate, toleranta)
    except GresealaCursant:
        raise
    except Exception as eroare:  # citirea unei ieșiri a ridicat o eroare
        if _e_suprascriere(eroare):
            raise GresealaCursant(
                _MESAJ_SUPRASCRIS_REAL + "S-a întâmplat când am citit lista pe care ai întors-o: cel puțin "
                f"o ieșire din ea nu mai există. {_EXPLICATIA_2}"
            ) from None
        linii = str(eroare).strip().splitlines()
        detaliu = linii[0][:300] if linii else ""
        raise GresealaCursant(
            f"Când am citit ieșirile tale, PyTorch a ridicat {type(eroare).__name__}: {detaliu}. Întoarce o "
            "listă de tensori obișnuiți, câte o copie pentru fiecare intrare."
        ) from None


_MODEL_COMPILAT: dict = {}


def _model_compilat_pe_gpu():
    """Rețeaua mică, compilată cu mode="reduce-overhead" și încălzită pe GPU. Se compilează o
    singură dată pe sesiune (recompilările repetate ar atinge limita de recompilări)."""
    if "model" not in _MODEL_COMPILAT:
        modul = _retea_mica("cuda")
        compilat = torch.compile(modul, mode="reduce-overhead")
        _MODEL_COMPILAT.update(modul=modul, model=compilat)
    modul, compilat = _MODEL_COMPILAT["modul"], _MODEL_COMPILAT["model"]
    with torch.no_grad():
        for x in _intrari(3, 2, "cuda", samanta=20):  # încălzire, capturare, prima reluare
            compilat(x)
    torch.cuda.synchronize()
    return modul, compilat


def exercitiul_2(ruleaza_tot) -> Rezultat:
    """Verifică `ruleaza_tot(model, intrari) -> list`: câte o ieșire pentru fiecare intrare,
    corectă chiar dacă `model` își refolosește memoria de ieșire de la un apel la altul. Testează
    cu `ModelCuIesireStatica` (pe CPU sau GPU) și, pe GPU, și cu
    `torch.compile(model, mode="reduce-overhead")` adevărat.

    Greșelile le prinde `ModelCuIesireStatica`, mereu la fel. Modelul compilat adevărat e o
    confirmare în plus: el suprascrie ieșirile doar cât timp fiecare apel e un pas nou; după ce
    s-a apelat o dată `torch.compiler.cudagraph_mark_step_begin()` în proces, apelurile din același
    pas primesc memorie nouă și o soluție fără copii ar trece de el."""

    def corp():
        if not callable(ruleaza_tot):
            apeleaza(ruleaza_tot)  # mesajul comun pentru ceva ce nu e funcție
        dispozitiv = torch.device("cuda" if torch.cuda.is_available() else "cpu")
        toleranta = _toleranta(dispozitiv)
        modul = _retea_mica(dispozitiv)
        intrari = _intrari(4, 2, dispozitiv, samanta=21)
        with torch.no_grad():
            asteptate = [modul(x) for x in intrari]
        _verifica_cu_model(ruleaza_tot, ModelCuIesireStatica(modul), intrari, asteptate, toleranta)
        if dispozitiv.type != "cuda":
            return (
                "Fiecare ieșire are memoria ei, deci supraviețuiește apelurilor următoare (verificat cu "
                "un model care își refolosește bufferul de ieșire). Copia costă puțin față de tot "
                "modelul, dar fă-o doar pentru ieșirile pe care le păstrezi după apelul următor."
            )
        try:
            modul_gpu, compilat = _model_compilat_pe_gpu()
            with torch.no_grad():
                asteptate_gpu = [modul_gpu(x) for x in intrari]
        except Exception as eroare:
            raise GresealaCursant(
                "Soluția ta e corectă pe modelul care imită bufferul static, dar n-am reușit să compilez "
                f"modelul de verificare cu mode=\"reduce-overhead\" ({type(eroare).__name__}: "
                f"{str(eroare).strip().splitlines()[0][:200] if str(eroare).strip() else ''}). "
                "Repornește kernel-ul notebook-ului și rulează din nou."
            ) from None
        _verifica_cu_model(ruleaza_tot, compilat, intrari, asteptate_gpu, toleranta)
        return (
            "Fiecare ieșire are memoria ei, deci supraviețuiește apelurilor următoare, și cu modelul "
            "compilat cu torch.compile(mode=\"reduce-overhead\") adevărat, pe GPU. Copia costă puțin "
            "față de tot modelul, dar fă-o doar pentru ieșirile pe care le păstrezi după apelul următor."
        )

    return verificare("Exercițiul 2", corp)


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

# (descriere, măsurători, prag; None = valoarea implicită). Punctele „exact la prag” au valori
# pentru care e / r == prag exact și în virgulă mobilă (și e >= prag * r, r / e <= 1 / prag).
_CAZURI_3 = [
    ("măsurătorile de exemplu", MASURATORI_EXEMPLU, None),
    (
        "măsurători cu zgomot, unde accelerarea nu scade monoton",
        {1: (0.00400, 0.00100), 2: (0.00410, 0.00120), 4: (0.00430, 0.00380), 8: (0.00470, 0.00290),
         16: (0.00600, 0.00560), 32: (0.01000, 0.01050)},
        None,
    ),
    (
        "măsurători unde niciun lot nu trece pragul",
        {1: (0.00310, 0.00290), 8: (0.00500, 0.00480), 64: (0.02000, 0.02100), 256: (0.08000, 0.10000)},
        None,
    ),
    (
        "măsurători unde toate loturile trec pragul",
        {1: (0.00500, 0.00100), 2: (0.00510, 0.00110), 4: (0.00520, 0.00130), 8: (0.00550, 0.00200)},
        None,
    ),
    (
        "măsurători cu loturile în altă ordine în dicționar",
        {64: (0.01900, 0.01880), 4: (0.00420, 0.00130), 256: (0.07500, 0.07600), 1: (0.00400, 0.00100),
         16: (0.00600, 0.00450), 2: (0.00410, 0.00110)},
        None,
    ),
    (
        "măsurători cu un lot exact la prag",
        {1: (0.00400, 0.00100), 2: (0.00300, 0.00250), 4: (0.00330, 0.00300), 8: (0.00600, 0.00460)},
        None,
    ),
    ("măsurătorile de exemplu", MASURATORI_EXEMPLU, 1.05),
    (
        "măsurători cu zgomot, unde accelerarea nu scade monoton",
        {1: (0.00400, 0.00100), 2: (0.00410, 0.00120), 4: (0.00430, 0.00380), 8: (0.00470, 0.00290),
         16: (0.00600, 0.00560), 32: (0.01000, 0.01050)},
        2.0,
    ),
    (
        "măsurători cu un lot exact la prag",
        {1: (0.00500, 0.00400), 2: (0.00500, 0.00410), 4: (0.01000, 0.00500), 8: (0.00600, 0.00590)},
        1.25,
    ),
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

# (ipoteză, mesaj): greșelile tipice, recunoscute după răspunsul pe care îl dau
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
        "Ignori argumentul prag: cu un prag dat de mine ai întors răspunsul pentru 1.2. Compară cu "
        "variabila prag, nu cu numărul 1.2 scris de mână.",
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


def _text_accelerari(masuratori: dict) -> str:
    return ", ".join(
        f"{format_numar(lot)}: {format_numar(a, 3)}×" for lot, a in sorted(_accelerari(masuratori).items())
    )


def _cu_prag(prag) -> str:
    return f"cu prag={prag}" if prag is not None else f"cu pragul implicit, {_PRAG_IMPLICIT}"


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
                f"Ai întors accelerările (de exemplu {format_numar(float(element))}), nu dimensiunile loturilor: "
                "pune în listă cheia lotului, nu raportul timpilor."
            )
        raise GresealaCursant(
            f"Elementele listei trebuie să fie dimensiuni de lot (int, cheile dicționarului), dar am "
            f"găsit {element!r} ({type(element).__name__})."
        )
    return [int(element) for element in rezultat]


def exercitiul_3(batch_uri_rentabile) -> Rezultat:
    """Verifică `batch_uri_rentabile(masuratori, prag=1.2)`: lista sortată a loturilor cu
    timp_eager / timp_reduce_overhead >= prag, pe mai multe seturi de măsurători sintetice
    (scădere tipică, zgomot nemonoton, niciun lot, toate loturile, chei nesortate, un lot exact la
    prag, praguri date). Recunoaște greșelile tipice după răspunsurile date pe toate seturile."""

    def corp():
        if not callable(batch_uri_rentabile):
            apeleaza(batch_uri_rentabile)  # mesajul comun pentru ceva ce nu e funcție
        _verifica_semnatura_3(batch_uri_rentabile)
        raspunsuri = []
        for descriere, masuratori, prag in _CAZURI_3:
            argumente = (dict(masuratori),) if prag is None else (dict(masuratori), prag)
            rezultat = apeleaza(batch_uri_rentabile, *argumente)
            loturi = _lista_de_loturi(rezultat, masuratori)
            asteptat = _rentabile(masuratori, _PRAG_IMPLICIT if prag is None else prag)
            if loturi != asteptat and sorted(loturi) == asteptat:
                raise GresealaCursant(
                    f"Loturile sunt cele bune, dar nu sunt sortate crescător ({loturi}). Cheile unui "
                    "dicționar vin în ordinea în care au fost puse, nu neapărat crescător: întoarce "
                    "sorted(...)."
                )
            raspunsuri.append(sorted(loturi))
        asteptate = [_rentabile(m, _PRAG_IMPLICIT if p is None else p) for _, m, p in _CAZURI_3]
        gresite = [i for i, (r, a) in enumerate(zip(raspunsuri, asteptate)) if r != a]
        if not gresite:
            return (
                "Alegi loturile după măsurători, nu după o regulă presupusă. Câștigul din "
                "reduce-overhead vine din costul lansării, care contează la loturi mici, când GPU-ul "
                "așteaptă după CPU, și se stinge la loturi mari, unde lucrul din fiecare kernel domină."
            )
        # 1. O greșeală tipică, aceeași pe toate seturile de măsurători.
        for ipoteza, mesaj in _IPOTEZE_3:
            if all(r == ipoteza(m, _PRAG_IMPLICIT if p is None else p) for r, (_, m, p) in zip(raspunsuri, _CAZURI_3)):
                return _respinge(mesaj, gresite[0], raspunsuri, asteptate)
        if len({tuple(r) for r in raspunsuri}) == 1:
            raise GresealaCursant(
                f"Ai întors același răspuns, {raspunsuri[0]}, pentru toate seturile de măsurători: "
                "calculează lista din dicționarul masuratori, nu o scrie de mână."
            )
        # 2. Altfel, prima măsurătoare greșită, cu o ipoteză care se potrivește doar acolo.
        i = gresite[0]
        _, masuratori, prag = _CAZURI_3[i]
        prag_efectiv = _PRAG_IMPLICIT if prag is None else prag
        for ipoteza, mesaj in _IPOTEZE_3:
            if raspunsuri[i] == ipoteza(masuratori, prag_efectiv):
                return _respinge(mesaj, i, raspunsuri, asteptate)
        return _respinge(f"Răspunsul nu e cel așteptat. {_PASUL_3}", i, raspunsuri, asteptate)

    return verificare("Exercițiul 3", corp)


def _respinge(mesaj: str, i: int, raspunsuri: list, asteptate: list):
    descriere, masuratori, prag = _CAZURI_3[i]
    raise GresealaCursant(
        f"{mesaj}\nPe {descriere} ({_cu_prag(prag)}) trebuia {asteptate[i]}, dar ai "
        f"întors {raspunsuri[i]}. Accelerările sunt: {_text_accelerari(masuratori)}."
    )
